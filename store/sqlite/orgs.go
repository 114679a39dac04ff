package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// CreateOrg stores a new organization.
func (s *Store) CreateOrg(ctx context.Context, org *lectern.Organization) error {
	if org.ID == "" {
		org.ID = lectern.NewID(lectern.PrefixOrg)
	}
	if org.CreatedAt.IsZero() {
		org.CreatedAt = now()
	}
	_, err := s.w.ExecContext(ctx, `INSERT INTO orgs (id, name, plan, created_at) VALUES (?, ?, ?, ?)`,
		org.ID, org.Name, string(org.Plan), ts(org.CreatedAt))
	if isUnique(err) {
		return lectern.Errorf(lectern.ECONFLICT, "organization %q already exists", org.ID)
	}
	return wrap(err)
}

const orgCols = `id, name, plan, created_at`

func scanOrg(row interface{ Scan(...any) error }) (*lectern.Organization, error) {
	var o lectern.Organization
	var plan string
	var created int64
	if err := row.Scan(&o.ID, &o.Name, &plan, &created); err != nil {
		return nil, err
	}
	o.Plan, o.CreatedAt = lectern.Plan(plan), fromTS(created)
	return &o, nil
}

// GetOrg returns an organization or ENOTFOUND.
func (s *Store) GetOrg(ctx context.Context, id string) (*lectern.Organization, error) {
	o, err := scanOrg(s.r.QueryRowContext(ctx, `SELECT `+orgCols+` FROM orgs WHERE id = ? AND deleted_at IS NULL`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, store.NotFound("organization", id)
	}
	return o, wrap(err)
}

// ListOrgs returns all organizations, oldest first.
func (s *Store) ListOrgs(ctx context.Context) ([]*lectern.Organization, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+orgCols+` FROM orgs WHERE deleted_at IS NULL ORDER BY created_at, id`)
	return collect(rows, err, scanOrg)
}

// SetOrgPlan changes an organization's plan.
func (s *Store) SetOrgPlan(ctx context.Context, id string, plan lectern.Plan) error {
	res, err := s.w.ExecContext(ctx, `UPDATE orgs SET plan = ? WHERE id = ? AND deleted_at IS NULL`, string(plan), id)
	if err != nil {
		return wrap(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return store.NotFound("organization", id)
	}
	return nil
}

// CreateAPIKey stores a key record.
func (s *Store) CreateAPIKey(ctx context.Context, k *lectern.APIKey) error {
	if k.ID == "" {
		k.ID = lectern.NewID(lectern.PrefixKey)
	}
	if k.CreatedAt.IsZero() {
		k.CreatedAt = now()
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM orgs WHERE id = ? AND deleted_at IS NULL`, k.OrgID).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return store.NotFound("organization", k.OrgID)
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO api_keys (id, org_id, name, hint, hash, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
			k.ID, k.OrgID, k.Name, k.Hint, k.Hash, ts(k.CreatedAt))
		if isUnique(err) {
			return lectern.Errorf(lectern.ECONFLICT, "an API key with this id or hash already exists")
		}
		return err
	})
}

const keyCols = `id, org_id, name, hint, hash, created_at, last_used_at, revoked_at`

func scanKey(row interface{ Scan(...any) error }) (*lectern.APIKey, error) {
	var k lectern.APIKey
	var created int64
	var used, revoked sql.NullInt64
	if err := row.Scan(&k.ID, &k.OrgID, &k.Name, &k.Hint, &k.Hash, &created, &used, &revoked); err != nil {
		return nil, err
	}
	k.CreatedAt, k.LastUsedAt, k.RevokedAt = fromTS(created), fromNull(used), fromNull(revoked)
	return &k, nil
}

// GetAPIKeyByHash returns the key with that hash, or ENOTFOUND.
func (s *Store) GetAPIKeyByHash(ctx context.Context, hash []byte) (*lectern.APIKey, error) {
	k, err := scanKey(s.keyByHash.QueryRowContext(ctx, hash))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, lectern.Errorf(lectern.ENOTFOUND, "API key not found")
	}
	return k, wrap(err)
}

// ListAPIKeys returns the keys of an organization, or all for "".
func (s *Store) ListAPIKeys(ctx context.Context, orgID string) ([]*lectern.APIKey, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+keyCols+` FROM api_keys WHERE ? = '' OR org_id = ? ORDER BY created_at, id`, orgID, orgID)
	return collect(rows, err, scanKey)
}

// RevokeAPIKey marks a key revoked, keeping the first revocation time.
func (s *Store) RevokeAPIKey(ctx context.Context, id string, at time.Time) error {
	res, err := s.w.ExecContext(ctx, `UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?`, ts(at), id)
	if err != nil {
		return wrap(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return store.NotFound("API key", id)
	}
	return nil
}

// TouchAPIKey records a use of the key.
func (s *Store) TouchAPIKey(ctx context.Context, id string, at time.Time) error {
	_, err := s.w.ExecContext(ctx, `UPDATE api_keys SET last_used_at = ? WHERE id = ?`, ts(at), id)
	return wrap(err)
}
