package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// Webhooks and their deliveries.
//
// Deliveries are stored by the transaction of the change they tell of
// (outbox, below). Row locks extend the order lifecycle.go describes: the
// project's row, the jobs', the updates' and exports', then webhooks' rows,
// which the outbox takes FOR KEY SHARE, then deliveries' rows. A delivery's
// job is locked after its webhook: DeleteWebhook takes the webhook's row
// FOR UPDATE (which waits for, and is waited for by, the outbox's key-share
// lock: a plain UPDATE would not), then its pending deliveries' jobs, then
// the deliveries; RecordAttempt key-share locks the webhook before its lease
// check locks the job. No transaction holds a delivery's job while it waits
// for a webhook, so a DeleteWebhook racing with the outbox or a worker
// never deadlocks: either the change sees the webhook deleted and stores no
// delivery for it, or DeleteWebhook sees the delivery and cancels it.

// CreateWebhook stores an endpoint of an organization. Its row is locked,
// so a concurrent DeleteOrg either is seen here (ENOTFOUND) or waits: FOR
// KEY SHARE with no limit, FOR NO KEY UPDATE with one, so that concurrent
// creates in the organization count its webhooks one after the other
// (the lock does not wait for the key-share locks of CreateProject).
func (s *Store) CreateWebhook(ctx context.Context, w *lectern.Webhook, limit int) error {
	if w.ID == "" {
		w.ID = lectern.NewID(lectern.PrefixWebhook)
	}
	if w.CreatedAt.IsZero() {
		w.CreatedAt = now()
	}
	w.CreatedAt = utc(w.CreatedAt) // as GetWebhook will return it
	if w.Events == nil {
		w.Events = []lectern.Event{}
	}
	events := make([]string, len(w.Events))
	for i, e := range w.Events {
		events[i] = string(e)
	}
	return s.tx(ctx, func(tx pgx.Tx) error {
		lock := "FOR KEY SHARE"
		if limit > 0 {
			lock = "FOR NO KEY UPDATE"
		}
		if err := lockRow(ctx, tx, `SELECT 1 FROM orgs WHERE id = $1 AND deleted_at IS NULL `+lock, store.NotFound("organization", w.OrgID), w.OrgID); err != nil {
			return err
		}
		if limit > 0 {
			var n int
			if err := tx.QueryRow(ctx, `SELECT count(*) FROM webhooks WHERE org_id = $1 AND deleted_at IS NULL`, w.OrgID).Scan(&n); err != nil {
				return err
			}
			if n >= limit {
				return store.TooManyWebhooks(limit)
			}
		}
		_, err := tx.Exec(ctx, `INSERT INTO webhooks (id, org_id, url, events, secret, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
			w.ID, w.OrgID, text(w.URL), events, w.Secret, w.CreatedAt)
		if isCode(err, uniqueViolation) {
			return lectern.Errorf(lectern.ECONFLICT, "webhook %q already exists", w.ID)
		}
		return err
	})
}

const webhookCols = `id, org_id, url, events, secret, created_at`

func scanWebhook(row pgx.Row) (*lectern.Webhook, error) {
	var w lectern.Webhook
	var events []string
	if err := row.Scan(&w.ID, &w.OrgID, &w.URL, &events, &w.Secret, &w.CreatedAt); err != nil {
		return nil, err
	}
	w.CreatedAt = utc(w.CreatedAt)
	w.Events = make([]lectern.Event, len(events))
	for i, e := range events {
		w.Events[i] = lectern.Event(e)
	}
	return &w, nil
}

// GetWebhook returns a webhook, or ENOTFOUND when it is missing or deleted.
func (s *Store) GetWebhook(ctx context.Context, id string) (*lectern.Webhook, error) {
	w, err := scanWebhook(s.pool.QueryRow(ctx, `SELECT `+webhookCols+` FROM webhooks WHERE id = $1 AND deleted_at IS NULL`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, store.NotFound("webhook", id)
	}
	return w, wrap(err)
}

// ListWebhooks returns a page of an organization's webhooks that are not
// deleted, newest first.
func (s *Store) ListWebhooks(ctx context.Context, orgID string, pg store.Page) ([]*lectern.Webhook, error) {
	tail, args := pageSQL("", pg, []any{orgID})
	rows, err := s.pool.Query(ctx, `SELECT `+webhookCols+` FROM webhooks WHERE org_id = $1 AND deleted_at IS NULL`+tail, args...)
	return collect(rows, err, scanWebhook)
}

// DeleteWebhook deletes a webhook at at and cancels its pending deliveries,
// ending their jobs so that a worker sending one loses its lease, in one
// transaction. ENOTFOUND when it is missing or already deleted.
func (s *Store) DeleteWebhook(ctx context.Context, id string, at time.Time) error {
	t := utc(at)
	return s.tx(ctx, func(tx pgx.Tx) error {
		// FOR UPDATE, not the UPDATE's weaker lock, so that the outbox
		// (which key-share locks the webhook) and RecordAttempt wait for
		// the outcome.
		if err := lockRow(ctx, tx, `SELECT 1 FROM webhooks WHERE id = $1 AND deleted_at IS NULL FOR UPDATE`, store.NotFound("webhook", id), id); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE webhooks SET deleted_at = $2 WHERE id = $1`, id, t); err != nil {
			return err
		}
		// The jobs before the deliveries, as a worker locks them.
		if _, err := tx.Exec(ctx, `UPDATE jobs SET state = 'done', lease_owner = NULL, lease_until = NULL, updated_at = $2
			WHERE state <> 'done' AND id IN (SELECT id FROM webhook_deliveries WHERE webhook_id = $1 AND status = 'pending')`, id, t); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `UPDATE webhook_deliveries SET status = 'canceled', ended_at = $2, next_attempt_at = NULL
			WHERE webhook_id = $1 AND status = 'pending'`, id, t)
		return err
	})
}

const deliveryCols = `id, webhook_id, org_id, event, status, payload, created_at, next_attempt_at, ended_at, attempts`

func scanDelivery(row pgx.Row) (*lectern.Delivery, error) {
	var d lectern.Delivery
	var event, status string
	var payload, attempts []byte
	if err := row.Scan(&d.ID, &d.WebhookID, &d.OrgID, &event, &status, &payload, &d.CreatedAt, &d.NextAttemptAt, &d.EndedAt, &attempts); err != nil {
		return nil, err
	}
	d.Event, d.Status, d.Payload = lectern.Event(event), lectern.DeliveryStatus(status), payload
	d.CreatedAt, d.NextAttemptAt, d.EndedAt = utc(d.CreatedAt), utcPtr(d.NextAttemptAt), utcPtr(d.EndedAt)
	if err := json.Unmarshal(attempts, &d.Attempts); err != nil {
		return nil, err
	}
	if d.Attempts == nil {
		d.Attempts = []lectern.DeliveryAttempt{}
	}
	for i := range d.Attempts {
		d.Attempts[i].At = utc(d.Attempts[i].At)
	}
	return &d, nil
}

// GetDelivery returns a delivery with its attempts and payload, or
// ENOTFOUND.
func (s *Store) GetDelivery(ctx context.Context, id string) (*lectern.Delivery, error) {
	d, err := scanDelivery(s.pool.QueryRow(ctx, `SELECT `+deliveryCols+` FROM webhook_deliveries WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, store.NotFound("webhook delivery", id)
	}
	return d, wrap(err)
}

// ListDeliveries returns a page of a webhook's deliveries, deleted webhook
// or not, newest first.
func (s *Store) ListDeliveries(ctx context.Context, webhookID string, pg store.Page) ([]*lectern.Delivery, error) {
	tail, args := pageSQL("", pg, []any{webhookID})
	rows, err := s.pool.Query(ctx, `SELECT `+deliveryCols+` FROM webhook_deliveries WHERE webhook_id = $1`+tail, args...)
	return collect(rows, err, scanDelivery)
}

// RecordAttempt appends an attempt to the leased delivery, and either ends
// it and its job (next zero) or gives the job back to the queue due at
// next, not counting the attempt. ECONFLICT, recording nothing, when the
// lease is lost or the webhook is deleted.
func (s *Store) RecordAttempt(ctx context.Context, l store.Lease, a lectern.DeliveryAttempt, next time.Time) error {
	a.At, a.Error = utc(a.At), text(a.Error)
	attempt, err := json.Marshal([]lectern.DeliveryAttempt{a})
	if err != nil {
		return err
	}
	return s.tx(ctx, func(tx pgx.Tx) error {
		// The webhook is locked before the job (see the top of this file);
		// a delivery's webhook never changes, so it is read unlocked.
		var webhookID string
		err := tx.QueryRow(ctx, `SELECT webhook_id FROM webhook_deliveries WHERE id = $1`, l.JobID).Scan(&webhookID)
		if errors.Is(err, pgx.ErrNoRows) {
			if err := checkLease(ctx, tx, l); err != nil {
				return err
			}
			return store.NotFound("webhook delivery", l.JobID)
		}
		if err != nil {
			return err
		}
		var deleted bool
		err = tx.QueryRow(ctx, `SELECT deleted_at IS NOT NULL FROM webhooks WHERE id = $1 FOR KEY SHARE`, webhookID).Scan(&deleted)
		if err != nil {
			return err
		}
		if deleted {
			return store.LeaseLost(l) // DeleteWebhook ended its job
		}
		if err := checkLease(ctx, tx, l); err != nil {
			return err
		}
		status, nextAt, ended := string(lectern.DeliveryPending), new(time.Time), (*time.Time)(nil)
		*nextAt = utc(next)
		if next.IsZero() {
			status, nextAt, ended = string(lectern.DeliveryFailed), nil, &a.At
			if a.StatusCode >= 200 && a.StatusCode <= 299 {
				status = string(lectern.DeliveryDelivered)
			}
		}
		tag, err := tx.Exec(ctx, `UPDATE webhook_deliveries SET attempts = attempts || $2::jsonb, status = $3, next_attempt_at = $4,
			ended_at = $5 WHERE id = $1 AND status = 'pending'`, l.JobID, string(attempt), status, nextAt, ended)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return store.LeaseLost(l) // the delivery has ended
		}
		if next.IsZero() {
			return endJob(ctx, tx, l.JobID, a.At)
		}
		// As ReleaseJob requeues: the attempt is not counted.
		_, err = tx.Exec(ctx, `UPDATE jobs SET state = 'queued', run_at = $1, lease_owner = NULL, lease_until = NULL, updated_at = $2,
			attempt = greatest(attempt - 1, 0) WHERE id = $3`, *nextAt, now(), l.JobID)
		return err
	})
}

// outbox stores, inside tx, a pending delivery of event e at at, with
// record as its data, for every webhook of the organization that
// subscribes to e and is not deleted, and the delivery's job, due at once
// (at, or now when at is later).
// The webhooks' rows are key-share locked: a DeleteWebhook under way
// either ends first (the webhook is skipped) or waits and cancels the
// delivery.
func outbox(ctx context.Context, tx pgx.Tx, orgID string, e lectern.Event, at time.Time, record any) error {
	rows, err := tx.Query(ctx, `SELECT id FROM webhooks WHERE org_id = $1 AND deleted_at IS NULL AND $2 = ANY(events)
		ORDER BY created_at, id COLLATE "C" FOR KEY SHARE`, orgID, string(e))
	if err != nil {
		return err
	}
	hooks, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(hooks) == 0 {
		return err
	}
	payload, err := lectern.EventPayload(e, at, record)
	if err != nil {
		return err
	}
	// Due at once: at, or now when the change is dated ahead of the
	// store's clock (a worker's clock ahead, a cancel dated later).
	at, due := utc(at), now()
	if at.Before(due) {
		due = at
	}
	for _, hook := range hooks {
		id := lectern.NewID(lectern.PrefixDelivery)
		if _, err := tx.Exec(ctx, `INSERT INTO webhook_deliveries (id, webhook_id, org_id, event, status, payload, created_at, next_attempt_at)
			VALUES ($1, $2, $3, $4, 'pending', $5, $6, $7)`, id, hook, orgID, string(e), payload, at, due); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO jobs (id, kind, group_key, state, run_at, max_attempts, created_at, updated_at, org_id, priority)
			VALUES ($1, $2, '', 'queued', $3, $4, $5, $5, $6, $7)`, id, store.KindWebhook, due, store.MaxAttempts, at, orgID, store.JobPriority(store.KindWebhook)); err != nil {
			return err
		}
	}
	return nil
}

// updateOutbox reads the update with the ID back inside tx, as GetUpdate
// will return it, and stores the deliveries of its event at at.
func updateOutbox(ctx context.Context, tx pgx.Tx, id string, at time.Time) error {
	u, err := scanUpdate(tx.QueryRow(ctx, `SELECT `+updateCols+` FROM updates WHERE id = $1`, id))
	if err != nil {
		return err
	}
	return updateEvent(ctx, tx, u, at)
}

// updateEvent stores the deliveries of the event of update u, as it now
// is, at at.
func updateEvent(ctx context.Context, tx pgx.Tx, u *lectern.Update, at time.Time) error {
	e, ok := lectern.UpdateEvent(u.Status)
	if !ok {
		return nil
	}
	return outbox(ctx, tx, u.OrgID, e, at, u)
}

// exportOutbox reads the export with the ID back inside tx, as GetExport
// will return it, and stores the deliveries of its event at at.
func exportOutbox(ctx context.Context, tx pgx.Tx, id string, at time.Time) error {
	x, err := scanExport(tx.QueryRow(ctx, `SELECT `+exportCols+` FROM exports WHERE id = $1`, id))
	if err != nil {
		return err
	}
	return exportEvent(ctx, tx, x, at)
}

// exportEvent stores the deliveries of the event of export x, as it now
// is, at at.
func exportEvent(ctx context.Context, tx pgx.Tx, x *lectern.ExportJob, at time.Time) error {
	e, ok := lectern.ExportEvent(x.Status)
	if !ok {
		return nil
	}
	return outbox(ctx, tx, x.OrgID, e, at, x)
}

// PruneDeliveries drops up to limit deliveries that ended before t, with
// their jobs.
func (s *Store) PruneDeliveries(ctx context.Context, before time.Time, limit int) (int, error) {
	var n int64
	err := s.tx(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT id FROM webhook_deliveries WHERE status <> 'pending' AND ended_at < $1
			ORDER BY ended_at, id LIMIT $2 FOR UPDATE SKIP LOCKED`, utc(before), limitArg(limit))
		if err != nil {
			return err
		}
		ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil || len(ids) == 0 {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM jobs WHERE id = ANY($1)`, ids); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `DELETE FROM webhook_deliveries WHERE id = ANY($1)`, ids)
		n = tag.RowsAffected()
		return err
	})
	return int(n), wrap(err)
}
