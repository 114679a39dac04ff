package actions

import (
	"context"
	"errors"
	"fmt"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// StartExport queues an export of the organization's domain (basePath
// as the spec's request gives it, already checked). It needs the
// enterprise plan (EPLAN otherwise); past ExportsPerHour starts in the
// last hour it is ERATELIMITED with RetryAfterSeconds set.
func (s *Service) StartExport(ctx context.Context, org, domain, basePath string) (*lectern.ExportJob, error) {
	// Callers check these with their own words; here they hold for all.
	var fields []lectern.FieldError
	d, err := lectern.NormalizeDomain(domain)
	if err != nil {
		fields = append(fields, lectern.FieldError{Field: "domain", Message: lectern.ErrorMessage(err)})
	}
	if basePath != "" {
		if basePath, err = lectern.NormalizeBasePath(basePath); err != nil {
			fields = append(fields, lectern.FieldError{Field: "basePath", Message: lectern.ErrorMessage(err)})
		}
	}
	if err := InvalidFields(fields); err != nil {
		return nil, err
	}
	domain = d
	o, err := s.Store.GetOrg(ctx, org)
	if err != nil {
		return nil, err
	}
	if !o.Plan.AllowsStaticExport() {
		return nil, lectern.Errorf(lectern.EPLAN,
			"Static export requires the enterprise plan; organization %s is on the %s plan. The server's operator changes it with: lectern admin org set-plan %s --plan enterprise", o.ID, o.Plan, o.ID)
	}
	p, err := s.ProjectByDomain(ctx, org, domain)
	if err != nil {
		return nil, err
	}
	e := &lectern.ExportJob{OrgID: org, ProjectID: p.ID, Domain: domain, BasePath: basePath}
	n := s.ExportsPerHour
	if err := s.Store.CreateExport(ctx, e, store.ExportQuota{Max: n, Since: s.now().Add(-time.Hour)}); err != nil {
		var le *lectern.Error
		if errors.As(err, &le) && le.Code == lectern.ERATELIMITED {
			next := s.now().Add(time.Duration(le.RetryAfterSeconds) * time.Second).UTC()
			err = &lectern.Error{Code: lectern.ERATELIMITED, RetryAfterSeconds: le.RetryAfterSeconds,
				Message: fmt.Sprintf("This organization has started the most exports allowed per hour (%d); the next may start in %s, at %s. The server's operator sets the limit with lectern serve --exports-per-hour.",
					n, waitText(le.RetryAfterSeconds), next.Format("15:04:05 UTC"))}
		}
		return nil, err
	}
	s.notify()
	return e, nil
}

// Export returns the organization's export job id.
func (s *Service) Export(ctx context.Context, org, id string) (*lectern.ExportJob, error) {
	e, err := s.Store.GetExport(ctx, id)
	if err == nil && e.OrgID != org {
		return nil, notFound("export job", id)
	}
	return e, err
}

// BundleLink is a signed download link to an export's bundle.
type BundleLink struct {
	JobID     string    `json:"jobId"`
	BundleURL string    `json:"bundleUrl"`
	ExpiresAt time.Time `json:"expiresAt"`
	SizeBytes int64     `json:"sizeBytes"`
	SHA256    string    `json:"sha256"`
	Version   string    `json:"version"`
}

// Bundle signs a fresh link to the bundle of the organization's
// completed export job id: EJOBFAILED when the job failed or was
// canceled, ENOTCOMPLETED while it runs.
func (s *Service) Bundle(ctx context.Context, org, id string) (*BundleLink, error) {
	e, err := s.Export(ctx, org, id)
	if err != nil {
		return nil, err
	}
	switch {
	case e.Status == lectern.ExportFailed:
		msg := "The export job failed, so it has no bundle; start a new export."
		if e.Error != nil {
			msg = "The export job failed (" + e.Error.Message + "), so it has no bundle; start a new export."
		}
		return nil, &lectern.Error{Code: lectern.EJOBFAILED, Message: msg, JobID: e.ID}
	case e.Status == lectern.ExportCanceled:
		return nil, &lectern.Error{Code: lectern.EJOBFAILED, JobID: e.ID,
			Message: "The export job was canceled, so it has no bundle; start a new export."}
	case e.Status != lectern.ExportCompleted || e.Bundle == nil:
		return nil, &lectern.Error{Code: lectern.ENOTCOMPLETED, JobID: e.ID,
			Message: "The export job is " + string(e.Status) + "; poll it until status is completed, then ask for the bundle."}
	}
	ttl := s.BundleURLTTL
	if ttl <= 0 {
		ttl = time.Hour
	}
	u, exp, err := s.Links.SignedURL(ctx, e.Bundle.Key, ttl)
	if err != nil {
		return nil, err
	}
	return &BundleLink{JobID: e.ID, BundleURL: u, ExpiresAt: exp.UTC(), SizeBytes: e.Bundle.SizeBytes, SHA256: e.Bundle.SHA256, Version: e.Bundle.Version}, nil
}

// waitText is a wait in seconds as people say it: "40 seconds", "12 minutes".
func waitText(secs int) string {
	switch {
	case secs < 90:
		return fmt.Sprintf("%d seconds", max(secs, 1))
	default:
		return fmt.Sprintf("%d minutes", (secs+59)/60)
	}
}
