package actions

import (
	"context"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// QueueInfo says where queued job id (an update's or an export's) waits:
// its place among its organization's jobs to start (under the workers'
// limits, OrgJobs and OrgJobsByPlan), and why it waits; nil when it no
// longer waits.
func (s *Service) QueueInfo(ctx context.Context, id string) (*lectern.QueueInfo, error) {
	p := store.ClaimParams{Kinds: []string{store.KindUpdate, store.KindExport}, OrgLimit: s.OrgJobs, PlanLimits: s.OrgJobsByPlan}
	q, err := s.Store.QueuePlace(ctx, id, p)
	if lectern.ErrorCode(err) == lectern.ENOTFOUND {
		return nil, nil // started, or ended, since it was read
	}
	if err != nil || q.Position == 0 {
		return nil, err
	}
	info := &lectern.QueueInfo{Position: q.Position, Running: q.Running, Limit: q.Limit, Reason: lectern.WaitWorkers}
	if q.AtLimit() {
		info.Reason = lectern.WaitOrgLimit
	}
	return info, nil
}
