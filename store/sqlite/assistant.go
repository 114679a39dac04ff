package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// RecordAssistantMessage stores a question and its answer, within their
// bounds, for a project that is not deleted (of m.OrgID when set).
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
	m.CreatedAt = m.CreatedAt.UTC().Truncate(time.Microsecond) // as ListAssistantMessages will return it
	cites, err := json.Marshal(m.Citations)
	if err != nil {
		return err
	}
	var helpful sql.NullBool
	if m.Helpful != nil {
		helpful = sql.NullBool{Bool: *m.Helpful, Valid: true}
	}
	var orgID string
	err = s.tx(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `SELECT org_id FROM projects WHERE id = ? AND deleted_at IS NULL`, m.ProjectID).Scan(&orgID)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && m.OrgID != "" && m.OrgID != orgID) {
			return store.NotFound("project", m.ProjectID)
		}
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO assistant_messages (id, org_id, project_id, domain, source, question, answer,
			citations_json, found, model, helpful, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			m.ID, orgID, m.ProjectID, m.Domain, string(m.Source), m.Question, m.Answer, string(cites), m.Found, m.Model, helpful, ts(m.CreatedAt))
		if isUnique(err) {
			return lectern.Errorf(lectern.ECONFLICT, "assistant message %q already exists", m.ID)
		}
		return err
	})
	if err != nil {
		return wrap(err)
	}
	m.OrgID = orgID
	return nil
}

// SetAssistantFeedback records the reader's verdict on a message of a
// project that is not deleted.
func (s *Store) SetAssistantFeedback(ctx context.Context, projectID, messageID string, helpful bool) error {
	res, err := s.w.ExecContext(ctx, `UPDATE assistant_messages SET helpful = ?1 WHERE id = ?2 AND project_id = ?3
		AND EXISTS (SELECT 1 FROM projects p WHERE p.id = ?3 AND p.deleted_at IS NULL)`, helpful, messageID, projectID)
	if err != nil {
		return wrap(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return store.NotFound("assistant message", messageID)
	}
	return nil
}

const assistantCols = `id, org_id, project_id, domain, source, question, answer, citations_json, found, model, helpful, created_at`

func scanAssistantMessage(row interface{ Scan(...any) error }) (*lectern.AssistantMessage, error) {
	var m lectern.AssistantMessage
	var source, cites string
	var helpful sql.NullBool
	var created int64
	if err := row.Scan(&m.ID, &m.OrgID, &m.ProjectID, &m.Domain, &source, &m.Question, &m.Answer, &cites, &m.Found, &m.Model,
		&helpful, &created); err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(cites), &m.Citations); err != nil {
		return nil, err
	}
	if helpful.Valid {
		m.Helpful = &helpful.Bool
	}
	m.Source, m.CreatedAt = lectern.AssistantSource(source), fromTS(created)
	return &m, nil
}

// ListAssistantMessages returns a page of the messages of a project that
// is not deleted created in f's window, newest first.
func (s *Store) ListAssistantMessages(ctx context.Context, projectID string, f store.AssistantFilter, pg store.Page) ([]*lectern.AssistantMessage, error) {
	q := `SELECT ` + assistantCols + ` FROM assistant_messages WHERE project_id = ?
		AND EXISTS (SELECT 1 FROM projects p WHERE p.id = ? AND p.deleted_at IS NULL)`
	args := []any{projectID, projectID}
	if !f.Since.IsZero() {
		q += ` AND created_at >= ?`
		args = append(args, ts(f.Since))
	}
	if !f.Until.IsZero() {
		q += ` AND created_at < ?`
		args = append(args, ts(f.Until))
	}
	cond, tail, pargs := pageSQL(pg)
	rows, err := s.r.QueryContext(ctx, q+cond+tail, append(args, pargs...)...)
	return collect(rows, err, scanAssistantMessage)
}

// PruneAssistantMessages drops up to limit messages created before t,
// oldest first.
func (s *Store) PruneAssistantMessages(ctx context.Context, before time.Time, limit int) (int, error) {
	res, err := s.w.ExecContext(ctx, `DELETE FROM assistant_messages WHERE id IN
		(SELECT id FROM assistant_messages WHERE created_at < ? ORDER BY created_at, id LIMIT ?)`, ts(before), limit)
	if err != nil {
		return 0, wrap(err)
	}
	n, err := res.RowsAffected()
	return int(n), wrap(err)
}
