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

// CreateWebhook stores an organization's endpoint; ENOTFOUND when the
// organization is missing or deleted, ECONFLICT when it has limit
// webhooks already (the one writer's transaction counts them).
func (s *Store) CreateWebhook(ctx context.Context, w *lectern.Webhook, limit int) error {
	if w.ID == "" {
		w.ID = lectern.NewID(lectern.PrefixWebhook)
	}
	if w.CreatedAt.IsZero() {
		w.CreatedAt = now()
	}
	w.CreatedAt = w.CreatedAt.UTC().Truncate(time.Microsecond) // as GetWebhook will return it
	if w.Events == nil {
		w.Events = []lectern.Event{}
	}
	eventsJSON, err := json.Marshal(w.Events)
	if err != nil {
		return err
	}
	return wrap(s.tx(ctx, func(tx *sql.Tx) error {
		var live int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM orgs WHERE id = ? AND deleted_at IS NULL`, w.OrgID).Scan(&live); err != nil {
			return err
		}
		if live == 0 {
			return store.NotFound("organization", w.OrgID)
		}
		if limit > 0 {
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM webhooks WHERE org_id = ? AND deleted_at IS NULL`, w.OrgID).Scan(&n); err != nil {
				return err
			}
			if n >= limit {
				return store.TooManyWebhooks(limit)
			}
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO webhooks (id, org_id, url, events_json, secret, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
			w.ID, w.OrgID, w.URL, string(eventsJSON), w.Secret, ts(w.CreatedAt))
		if isUnique(err) {
			return lectern.Errorf(lectern.ECONFLICT, "webhook %q already exists", w.ID)
		}
		return err
	}))
}

const webhookCols = `id, org_id, url, events_json, secret, created_at`

func scanWebhook(row interface{ Scan(...any) error }) (*lectern.Webhook, error) {
	var w lectern.Webhook
	var events string
	var created int64
	if err := row.Scan(&w.ID, &w.OrgID, &w.URL, &events, &w.Secret, &created); err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(events), &w.Events); err != nil {
		return nil, err
	}
	if w.Events == nil {
		w.Events = []lectern.Event{}
	}
	w.CreatedAt = fromTS(created)
	return &w, nil
}

// GetWebhook returns a webhook, or ENOTFOUND when it is missing or deleted.
func (s *Store) GetWebhook(ctx context.Context, id string) (*lectern.Webhook, error) {
	w, err := scanWebhook(s.r.QueryRowContext(ctx, `SELECT `+webhookCols+` FROM webhooks WHERE id = ? AND deleted_at IS NULL`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, store.NotFound("webhook", id)
	}
	return w, wrap(err)
}

// ListWebhooks returns a page of an organization's webhooks that are not
// deleted, newest first.
func (s *Store) ListWebhooks(ctx context.Context, orgID string, pg store.Page) ([]*lectern.Webhook, error) {
	cond, tail, args := pageSQL(pg)
	rows, err := s.r.QueryContext(ctx, `SELECT `+webhookCols+` FROM webhooks WHERE org_id = ? AND deleted_at IS NULL`+cond+tail,
		append([]any{orgID}, args...)...)
	return collect(rows, err, scanWebhook)
}

// DeleteWebhook removes a webhook and ends its pending deliveries as
// canceled at at, their jobs done, in one transaction.
func (s *Store) DeleteWebhook(ctx context.Context, id string, at time.Time) error {
	return wrap(s.tx(ctx, func(tx *sql.Tx) error {
		t := ts(at)
		res, err := tx.ExecContext(ctx, `UPDATE webhooks SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL`, t, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return store.NotFound("webhook", id)
		}
		// The jobs first: they are found by the state the next one ends.
		if _, err := tx.ExecContext(ctx, `UPDATE jobs SET state = 'done', lease_owner = NULL, lease_until = NULL, updated_at = ?2
			WHERE state <> 'done' AND id IN (SELECT id FROM webhook_deliveries WHERE webhook_id = ?1 AND status = 'pending')`, id, t); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE webhook_deliveries SET status = 'canceled', ended_at = ?2, next_attempt_at = NULL
			WHERE webhook_id = ?1 AND status = 'pending'`, id, t)
		return err
	}))
}

const deliveryCols = `id, webhook_id, org_id, event, status, payload, created_at, next_attempt_at, ended_at, attempts_json`

func scanDelivery(row interface{ Scan(...any) error }) (*lectern.Delivery, error) {
	var d lectern.Delivery
	var event, status, attempts string
	var payload []byte
	var created int64
	var next, ended sql.NullInt64
	if err := row.Scan(&d.ID, &d.WebhookID, &d.OrgID, &event, &status, &payload, &created, &next, &ended, &attempts); err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(attempts), &d.Attempts); err != nil {
		return nil, err
	}
	if d.Attempts == nil {
		d.Attempts = []lectern.DeliveryAttempt{}
	}
	d.Event, d.Status, d.Payload = lectern.Event(event), lectern.DeliveryStatus(status), json.RawMessage(payload)
	d.CreatedAt, d.NextAttemptAt, d.EndedAt = fromTS(created), fromNull(next), fromNull(ended)
	return &d, nil
}

// GetDelivery returns a delivery with its attempts and payload, or
// ENOTFOUND.
func (s *Store) GetDelivery(ctx context.Context, id string) (*lectern.Delivery, error) {
	d, err := scanDelivery(s.r.QueryRowContext(ctx, `SELECT `+deliveryCols+` FROM webhook_deliveries WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, store.NotFound("webhook delivery", id)
	}
	return d, wrap(err)
}

// ListDeliveries returns a page of a webhook's deliveries, deleted webhook
// or not, newest first.
func (s *Store) ListDeliveries(ctx context.Context, webhookID string, pg store.Page) ([]*lectern.Delivery, error) {
	cond, tail, args := pageSQL(pg)
	rows, err := s.r.QueryContext(ctx, `SELECT `+deliveryCols+` FROM webhook_deliveries WHERE webhook_id = ?`+cond+tail,
		append([]any{webhookID}, args...)...)
	return collect(rows, err, scanDelivery)
}

// RecordAttempt appends attempt a to the leased delivery. With next zero it
// ends the delivery (delivered on a 2xx status, else failed) and its job;
// otherwise the delivery stays pending and its job is queued again, due at
// next, the attempt not counted.
func (s *Store) RecordAttempt(ctx context.Context, lease store.Lease, a lectern.DeliveryAttempt, next time.Time) error {
	a.At = a.At.UTC().Truncate(time.Microsecond)
	return wrap(s.tx(ctx, func(tx *sql.Tx) error {
		if err := checkLease(ctx, tx, lease); err != nil {
			return err
		}
		var status, attemptsJSON string
		var hookDeleted sql.NullInt64
		err := tx.QueryRowContext(ctx, `SELECT d.status, d.attempts_json, w.deleted_at FROM webhook_deliveries d
			JOIN webhooks w ON w.id = d.webhook_id WHERE d.id = ?`, lease.JobID).Scan(&status, &attemptsJSON, &hookDeleted)
		if errors.Is(err, sql.ErrNoRows) {
			return store.NotFound("webhook delivery", lease.JobID)
		}
		if err != nil {
			return err
		}
		if hookDeleted.Valid || lectern.DeliveryStatus(status) != lectern.DeliveryPending {
			return store.LeaseLost(lease)
		}
		var attempts []lectern.DeliveryAttempt
		if err := json.Unmarshal([]byte(attemptsJSON), &attempts); err != nil {
			return err
		}
		b, err := json.Marshal(append(attempts, a))
		if err != nil {
			return err
		}
		if !next.IsZero() {
			if _, err := tx.ExecContext(ctx, `UPDATE webhook_deliveries SET attempts_json = ?, next_attempt_at = ? WHERE id = ?`,
				string(b), ts(next), lease.JobID); err != nil {
				return err
			}
			return requeueJob(ctx, tx, lease, next, nil, true)
		}
		end := lectern.DeliveryFailed
		if a.StatusCode >= 200 && a.StatusCode <= 299 {
			end = lectern.DeliveryDelivered
		}
		if _, err := tx.ExecContext(ctx, `UPDATE webhook_deliveries SET attempts_json = ?, status = ?, ended_at = ?,
			next_attempt_at = NULL WHERE id = ?`, string(b), string(end), ts(a.At), lease.JobID); err != nil {
			return err
		}
		return endJob(ctx, tx, lease.JobID, ts(a.At))
	}))
}

// PruneDeliveries drops up to limit deliveries that ended before t, with
// their jobs.
func (s *Store) PruneDeliveries(ctx context.Context, before time.Time, limit int) (int, error) {
	var n int64
	err := s.tx(ctx, func(tx *sql.Tx) error {
		const old = `SELECT id FROM webhook_deliveries WHERE status <> 'pending' AND ended_at < ?1 ORDER BY ended_at, id LIMIT ?2`
		if _, err := tx.ExecContext(ctx, `DELETE FROM jobs WHERE id IN (`+old+`)`, ts(before), limit); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM webhook_deliveries WHERE id IN (`+old+`)`, ts(before), limit)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return int(n), wrap(err)
}
