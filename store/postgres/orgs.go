package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

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
	_, err := s.pool.Exec(ctx, `INSERT INTO orgs (id, name, plan, created_at) VALUES ($1, $2, $3, $4)`,
		org.ID, text(org.Name), string(org.Plan), utc(org.CreatedAt))
	if isCode(err, uniqueViolation) {
		return lectern.Errorf(lectern.ECONFLICT, "organization %q already exists", org.ID)
	}
	return wrap(err)
}

const orgCols = `id, name, plan, created_at`

func scanOrg(row pgx.Row) (*lectern.Organization, error) {
	var o lectern.Organization
	var plan string
	if err := row.Scan(&o.ID, &o.Name, &plan, &o.CreatedAt); err != nil {
		return nil, err
	}
	o.Plan, o.CreatedAt = lectern.Plan(plan), utc(o.CreatedAt)
	return &o, nil
}

// GetOrg returns an organization, or ENOTFOUND when it is missing or
// deleted.
func (s *Store) GetOrg(ctx context.Context, id string) (*lectern.Organization, error) {
	o, err := scanOrg(s.pool.QueryRow(ctx, `SELECT `+orgCols+` FROM orgs WHERE id = $1 AND deleted_at IS NULL`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, store.NotFound("organization", id)
	}
	return o, wrap(err)
}

// ListOrgs returns all organizations that are not deleted, oldest first.
func (s *Store) ListOrgs(ctx context.Context) ([]*lectern.Organization, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+orgCols+` FROM orgs WHERE deleted_at IS NULL ORDER BY created_at, id`)
	return collect(rows, err, scanOrg)
}

// SetOrgPlan changes an organization's plan; ENOTFOUND when it is missing
// or deleted.
func (s *Store) SetOrgPlan(ctx context.Context, id string, plan lectern.Plan) error {
	tag, err := s.pool.Exec(ctx, `UPDATE orgs SET plan = $1 WHERE id = $2 AND deleted_at IS NULL`, string(plan), id)
	if err != nil {
		return wrap(err)
	}
	if tag.RowsAffected() == 0 {
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
	// The organization's row is locked against DeleteOrg, which revokes
	// the keys it finds: a key is never made for an organization being
	// deleted.
	return s.tx(ctx, func(tx pgx.Tx) error {
		if err := lockRow(ctx, tx, `SELECT 1 FROM orgs WHERE id = $1 AND deleted_at IS NULL FOR KEY SHARE`, store.NotFound("organization", k.OrgID), k.OrgID); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO api_keys (id, org_id, name, hint, hash, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
			k.ID, k.OrgID, text(k.Name), k.Hint, k.Hash, utc(k.CreatedAt))
		if isCode(err, uniqueViolation) {
			return lectern.Errorf(lectern.ECONFLICT, "an API key with this id or hash already exists")
		}
		return err
	})
}

const keyCols = `id, org_id, name, hint, hash, created_at, last_used_at, revoked_at`

func scanKey(row pgx.Row) (*lectern.APIKey, error) {
	var k lectern.APIKey
	if err := row.Scan(&k.ID, &k.OrgID, &k.Name, &k.Hint, &k.Hash, &k.CreatedAt, &k.LastUsedAt, &k.RevokedAt); err != nil {
		return nil, err
	}
	k.CreatedAt, k.LastUsedAt, k.RevokedAt = utc(k.CreatedAt), utcPtr(k.LastUsedAt), utcPtr(k.RevokedAt)
	return &k, nil
}

// GetAPIKeyByHash returns the key with that hash, or ENOTFOUND.
func (s *Store) GetAPIKeyByHash(ctx context.Context, hash []byte) (*lectern.APIKey, error) {
	k, err := scanKey(s.pool.QueryRow(ctx, `SELECT `+keyCols+` FROM api_keys WHERE hash = $1`, hash))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, lectern.Errorf(lectern.ENOTFOUND, "API key not found")
	}
	return k, wrap(err)
}

// ListAPIKeys returns the keys of an organization, or all for "".
func (s *Store) ListAPIKeys(ctx context.Context, orgID string) ([]*lectern.APIKey, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+keyCols+` FROM api_keys WHERE $1 = '' OR org_id = $1 ORDER BY created_at, id`, orgID)
	return collect(rows, err, scanKey)
}

// RevokeAPIKey marks a key revoked, keeping the first revocation time.
func (s *Store) RevokeAPIKey(ctx context.Context, id string, at time.Time) error {
	tag, err := s.pool.Exec(ctx, `UPDATE api_keys SET revoked_at = coalesce(revoked_at, $1) WHERE id = $2`, utc(at), id)
	if err != nil {
		return wrap(err)
	}
	if tag.RowsAffected() == 0 {
		return store.NotFound("API key", id)
	}
	return nil
}

// TouchAPIKey records a use of the key.
func (s *Store) TouchAPIKey(ctx context.Context, id string, at time.Time) error {
	_, err := s.pool.Exec(ctx, `UPDATE api_keys SET last_used_at = $1 WHERE id = $2`, utc(at), id)
	return wrap(err)
}
