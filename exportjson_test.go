package lectern

import (
	"encoding/json"
	"testing"
	"time"
)

// exportJobJSON mirrors ExportJob's API shape with plain struct tags, so
// encoding/json's output can be compared with the hand-written encoder.
type exportJobJSON struct {
	ID          string       `json:"jobId"`
	Domain      string       `json:"domain"`
	BasePath    string       `json:"basePath,omitempty"`
	Status      ExportStatus `json:"status"`
	Progress    int          `json:"progress"`
	PageCount   int          `json:"pageCount"`
	CreatedAt   time.Time    `json:"createdAt"`
	UpdatedAt   time.Time    `json:"updatedAt"`
	CompletedAt *time.Time   `json:"completedAt"`
	Error       *JobError    `json:"error"`
}

func TestExportJobJSONMatchesReflection(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 21, 19, 3, 24, 698914000, time.UTC)
	done := at.Add(time.Second)
	cases := []ExportJob{
		{ID: "exp_1", Domain: "docs.acme.test", Status: ExportQueued, CreatedAt: at, UpdatedAt: at},
		{ID: "exp_2", Domain: "docs.acme.test", BasePath: "/docs", Status: ExportCompleted, Progress: 100, PageCount: 17,
			CreatedAt: at, UpdatedAt: done, CompletedAt: &done},
		{ID: "exp_3", Domain: "d.test", Status: ExportFailed, Progress: 42, PageCount: 3, CreatedAt: at, UpdatedAt: at, CompletedAt: &done,
			Error: &JobError{Code: "build_failed", Message: "docs.json: \"quoted\" <tag> & \\ back\nslash \u2028 é \x01"}},
		{ID: "exp_4", Domain: "x.test", Status: ExportRunning, CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), UpdatedAt: at},
	}
	for _, e := range cases {
		want, err := json.Marshal(exportJobJSON{ID: e.ID, Domain: e.Domain, BasePath: e.BasePath, Status: e.Status, Progress: e.Progress,
			PageCount: e.PageCount, CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt, CompletedAt: e.CompletedAt, Error: e.Error})
		if err != nil {
			t.Fatal(err)
		}
		got, err := json.Marshal(&e)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("hand-written JSON differs:\n got %s\nwant %s", got, want)
		}
	}
}
