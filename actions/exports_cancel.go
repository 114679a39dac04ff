package actions

import (
	"context"

	"lectern.dev/lectern"
)

// CancelExport cancels the organization's queued or running export job
// id and returns it as it now is. An export that has already ended is an
// ECONFLICT error saying there is nothing to cancel, so that a caller that
// raced the job's end learns why, whichever way it asked.
func (s *Service) CancelExport(ctx context.Context, org, id string) (*lectern.ExportJob, error) {
	e, err := s.Export(ctx, org, id)
	if err != nil {
		return nil, err
	}
	e, err = s.Store.CancelExport(ctx, e.ID, s.now())
	if lectern.ErrorCode(err) == lectern.ECONFLICT {
		return nil, lectern.Errorf(lectern.ECONFLICT, "%s; there is nothing to cancel.", lectern.ErrorMessage(err))
	}
	return e, err
}
