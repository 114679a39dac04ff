package lectern

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// plainExportJob has ExportJob's fields and tags but not its MarshalJSON,
// so encoding/json encodes it by reflection: the reference output.
type plainExportJob ExportJob

func TestExportJobJSONMatchesReflection(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 21, 19, 3, 24, 698914000, time.UTC)
	done := at.Add(time.Second)
	cases := []ExportJob{
		{ID: "exp_1", Domain: "docs.acme.test", Status: ExportQueued, CreatedAt: at, UpdatedAt: at},
		{ID: "exp_2", OrgID: "org_hidden", ProjectID: "prj_hidden", Bundle: &Bundle{Key: "exports/exp_2/x.tar.gz", SHA256: "ab"},
			Domain: "docs.acme.test", BasePath: "/docs", Status: ExportCompleted, Progress: 100, PageCount: 17,
			CreatedAt: at, UpdatedAt: done, CompletedAt: &done},
		{ID: "exp_3", Domain: "d.test", Status: ExportFailed, Progress: 42, PageCount: 3, CreatedAt: at, UpdatedAt: at, CompletedAt: &done,
			Error: &JobError{Code: "build_failed", Message: "docs.json: \"quoted\" <tag> & \\ back\nslash \u2028 é \x01"}},
		{ID: "exp_4", Domain: "x.test", Status: ExportRunning, CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), UpdatedAt: at},
		{ID: "exp_5", Domain: "q.test", Status: ExportQueued, CreatedAt: at, UpdatedAt: at,
			Queue: &QueueInfo{Position: 3, Running: 2, Limit: 2, Reason: WaitOrgLimit}},
	}
	for _, e := range cases {
		want, err := json.Marshal((*plainExportJob)(&e))
		if err != nil {
			t.Fatal(err)
		}
		got, err := json.Marshal(&e)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(got), "hidden") || strings.Contains(string(got), "exports/") {
			t.Errorf("internal fields leaked: %s", got)
		}
		if string(got) != string(want) {
			t.Errorf("hand-written JSON differs:\n got %s\nwant %s", got, want)
		}
	}
}
