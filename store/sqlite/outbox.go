package sqlite

import (
	"context"
	"database/sql"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// The transactional outbox: the changes that end an update or an export
// store, in their own transaction, one pending delivery (and its job) per
// webhook of the organization that takes the event, so that an event is
// told exactly when its change is committed.

// rowQuerier reads inside a transaction or outside one (*sql.Tx, *sql.DB).
type rowQuerier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// readUpdate returns an update as GetUpdate would, read through q;
// sql.ErrNoRows when missing.
func readUpdate(ctx context.Context, q rowQuerier, id string) (*lectern.Update, error) {
	return scanUpdate(q.QueryRowContext(ctx, updateSelect, id))
}

// readExport returns an export as GetExport would, read through q;
// sql.ErrNoRows when missing.
func readExport(ctx context.Context, q rowQuerier, id string) (*lectern.ExportJob, error) {
	return scanExport(q.QueryRowContext(ctx, `SELECT `+exportCols+` FROM exports WHERE id = ?`, id))
}

// readIDs returns the first column of every row of a query, read in full
// before the caller writes again.
func readIDs(ctx context.Context, q rowQuerier, query string, args ...any) ([]string, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// notifyUpdate enqueues, inside tx, the event of update id as it now is
// (none while it has not ended), changed at at.
func notifyUpdate(ctx context.Context, tx *sql.Tx, id string, at time.Time) error {
	u, err := readUpdate(ctx, tx, id)
	if err != nil {
		return err
	}
	e, ok := lectern.UpdateEvent(u.Status)
	if !ok {
		return nil
	}
	return enqueueEvent(ctx, tx, u.OrgID, e, at, u)
}

// notifyExport enqueues, inside tx, the event of export id as it now is
// (none while it has not ended), changed at at.
func notifyExport(ctx context.Context, tx *sql.Tx, id string, at time.Time) error {
	x, err := readExport(ctx, tx, id)
	if err != nil {
		return err
	}
	e, ok := lectern.ExportEvent(x.Status)
	if !ok {
		return nil
	}
	return enqueueEvent(ctx, tx, x.OrgID, e, at, x)
}

// enqueueEvent stores, inside the caller's transaction, a pending delivery
// of event e (payload lectern.EventPayload(e, at, record)) for every
// webhook of the organization that is not deleted and takes e, each with
// its job, due at once (at, or now when at is later).
func enqueueEvent(ctx context.Context, tx *sql.Tx, orgID string, e lectern.Event, at time.Time, record any) error {
	hooks, err := readIDs(ctx, tx, `SELECT id FROM webhooks WHERE org_id = ? AND deleted_at IS NULL
		AND EXISTS (SELECT 1 FROM json_each(events_json) WHERE value = ?) ORDER BY created_at, id`, orgID, string(e))
	if err != nil || len(hooks) == 0 {
		return err
	}
	payload, err := lectern.EventPayload(e, at, record)
	if err != nil {
		return err
	}
	// Due at once: at, or now when the change is dated ahead of the
	// store's clock (a worker's clock ahead, a cancel dated later).
	t := ts(at)
	due := min(t, ts(now()))
	for _, hook := range hooks {
		id := lectern.NewID(lectern.PrefixDelivery)
		if _, err := tx.ExecContext(ctx, `INSERT INTO webhook_deliveries (id, webhook_id, org_id, event, status, payload, created_at,
			next_attempt_at, attempts_json) VALUES (?, ?, ?, ?, 'pending', ?, ?, ?, '[]')`,
			id, hook, orgID, string(e), string(payload), t, due); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO jobs (id, kind, group_key, state, run_at, max_attempts, created_at, updated_at, org_id, priority)
			VALUES (?, ?, '', 'queued', ?, ?, ?, ?, ?, ?)`, id, store.KindWebhook, due, store.MaxAttempts, t, t, orgID, store.JobPriority(store.KindWebhook)); err != nil {
			return err
		}
	}
	return nil
}
