package postgres

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// The assistant's questions and answers, kept for analytics.
//
// RecordAssistantMessage key-share locks its project's row while it
// inserts, as CreateExport does: a concurrent DeleteProject or PurgeProject
// (FOR UPDATE) either waits for it, or is seen (ENOTFOUND), so no message
// is stored for a project once it is deleted, nor left behind by its purge.
// The IDs that name what to read or change go through text, so that one
// PostgreSQL cannot take (a NUL, invalid UTF-8) names nothing instead of
// failing.

// RecordAssistantMessage stores a question and its answer, within their
// bounds, for a project that is not deleted (of m.OrgID when set), in one
// statement.
func (s *Store) RecordAssistantMessage(ctx context.Context, m *lectern.AssistantMessage) error {
	if err := m.Bound(); err != nil {
		return err
	}
	if m.ID == "" {
		m.ID = lectern.NewID(lectern.PrefixAssistantMessage)
	}
	if m.CreatedAt.IsZero() {
		m.CreatedAt = now()
	}
	m.CreatedAt = utc(m.CreatedAt) // as ListAssistantMessages will return it
	var orgID string
	err := s.pool.QueryRow(ctx, `WITH p AS (SELECT org_id FROM projects WHERE id = $2 AND deleted_at IS NULL
			AND ($3 = '' OR org_id = $3) FOR KEY SHARE)
		INSERT INTO assistant_messages (id, org_id, project_id, domain, source, question, answer, citations, found, model, helpful, created_at)
		SELECT $1, p.org_id, $2, $4::text, $5::text, $6::text, $7::text, $8::jsonb, $9::boolean, $10::text, $11::boolean, $12::timestamptz
		FROM p RETURNING org_id`,
		m.ID, text(m.ProjectID), text(m.OrgID), m.Domain, string(m.Source), m.Question, m.Answer, m.Citations, m.Found, m.Model,
		m.Helpful, m.CreatedAt).Scan(&orgID)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return store.NotFound("project", m.ProjectID)
	case isCode(err, uniqueViolation):
		return lectern.Errorf(lectern.ECONFLICT, "assistant message %q already exists", m.ID)
	case err != nil:
		return wrap(err)
	}
	m.OrgID = orgID
	return nil
}

// SetAssistantFeedback records the reader's verdict on a message of a
// project that is not deleted.
func (s *Store) SetAssistantFeedback(ctx context.Context, projectID, messageID string, helpful bool) error {
	tag, err := s.pool.Exec(ctx, `UPDATE assistant_messages SET helpful = $3 WHERE id = $1 AND project_id = $2
		AND EXISTS (SELECT 1 FROM projects p WHERE p.id = $2 AND p.deleted_at IS NULL)`, text(messageID), text(projectID), helpful)
	if err != nil {
		return wrap(err)
	}
	if tag.RowsAffected() == 0 {
		return store.NotFound("assistant message", messageID)
	}
	return nil
}

const assistantCols = `id, org_id, project_id, domain, source, question, answer, citations, found, model, helpful, created_at`

func scanAssistantMessage(row pgx.Row) (*lectern.AssistantMessage, error) {
	var m lectern.AssistantMessage
	var source string
	if err := row.Scan(&m.ID, &m.OrgID, &m.ProjectID, &m.Domain, &source, &m.Question, &m.Answer, &m.Citations, &m.Found, &m.Model,
		&m.Helpful, &m.CreatedAt); err != nil {
		return nil, err
	}
	m.Source, m.CreatedAt = lectern.AssistantSource(source), utc(m.CreatedAt)
	return &m, nil
}

// ListAssistantMessages returns a page of the messages of a project that
// is not deleted created in f's window, newest first.
func (s *Store) ListAssistantMessages(ctx context.Context, projectID string, f store.AssistantFilter, pg store.Page) ([]*lectern.AssistantMessage, error) {
	q := `SELECT ` + assistantCols + ` FROM assistant_messages WHERE project_id = $1
		AND EXISTS (SELECT 1 FROM projects p WHERE p.id = $1 AND p.deleted_at IS NULL)`
	args := []any{text(projectID)}
	if !f.Since.IsZero() {
		args = append(args, utc(f.Since))
		q += ` AND created_at >= $` + strconv.Itoa(len(args))
	}
	if !f.Until.IsZero() {
		args = append(args, utc(f.Until))
		q += ` AND created_at < $` + strconv.Itoa(len(args))
	}
	tail, args := pageSQL("", pg, args)
	rows, err := s.pool.Query(ctx, q+tail, args...)
	return collect(rows, err, scanAssistantMessage)
}

// PruneAssistantMessages drops up to limit messages created before t,
// oldest first; messages another pruner holds are left to it.
func (s *Store) PruneAssistantMessages(ctx context.Context, before time.Time, limit int) (int, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM assistant_messages WHERE id IN (SELECT id FROM assistant_messages
		WHERE created_at < $1 ORDER BY created_at, id COLLATE "C" LIMIT $2 FOR UPDATE SKIP LOCKED)`, utc(before), limitArg(limit))
	if err != nil {
		return 0, wrap(err)
	}
	return int(tag.RowsAffected()), nil
}
