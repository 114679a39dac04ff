package lectern

import (
	"encoding/json"
	"strconv"
	"time"
)

// AppendJSON appends the job's API representation to b. It is what clients
// poll, so it is written by hand rather than by reflection.
func (e *ExportJob) AppendJSON(b []byte) []byte {
	b = append(b, `{"jobId":`...)
	b = appendJSONString(b, e.ID)
	b = append(b, `,"domain":`...)
	b = appendJSONString(b, e.Domain)
	if e.BasePath != "" {
		b = append(b, `,"basePath":`...)
		b = appendJSONString(b, e.BasePath)
	}
	b = append(b, `,"status":`...)
	b = appendJSONString(b, string(e.Status))
	b = append(b, `,"progress":`...)
	b = strconv.AppendInt(b, int64(e.Progress), 10)
	b = append(b, `,"pageCount":`...)
	b = strconv.AppendInt(b, int64(e.PageCount), 10)
	b = append(b, `,"createdAt":`...)
	b = appendJSONTime(b, e.CreatedAt)
	b = append(b, `,"updatedAt":`...)
	b = appendJSONTime(b, e.UpdatedAt)
	b = append(b, `,"completedAt":`...)
	if e.CompletedAt == nil {
		b = append(b, "null"...)
	} else {
		b = appendJSONTime(b, *e.CompletedAt)
	}
	b = append(b, `,"error":`...)
	if e.Error == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, `{"code":`...)
		b = appendJSONString(b, e.Error.Code)
		b = append(b, `,"message":`...)
		b = appendJSONString(b, e.Error.Message)
		b = append(b, '}')
	}
	if q := e.Queue; q != nil {
		b = append(b, `,"queue":{"position":`...)
		b = strconv.AppendInt(b, int64(q.Position), 10)
		b = append(b, `,"running":`...)
		b = strconv.AppendInt(b, int64(q.Running), 10)
		b = append(b, `,"limit":`...)
		b = strconv.AppendInt(b, int64(q.Limit), 10)
		b = append(b, `,"reason":`...)
		b = appendJSONString(b, q.Reason)
		b = append(b, '}')
	}
	return append(b, '}')
}

// MarshalJSON encodes the job as the API shows it.
func (e *ExportJob) MarshalJSON() ([]byte, error) { return e.AppendJSON(nil), nil }

// appendJSONString appends s as a JSON string: plain ASCII directly, and
// anything else through encoding/json, so escaping always matches it.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendJSONTime appends t as encoding/json does (RFC 3339 with nanoseconds).
func appendJSONTime(b []byte, t time.Time) []byte {
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
}
