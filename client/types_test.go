package client_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"lectern.dev/lectern/client"
	"lectern.dev/lectern/httpapi"
)

// The client's types must mirror the OpenAPI document's schemas: the same
// properties, required ones never omitted, optional ones omitted when
// empty, and Go types that hold the schema's values.
func TestTypesMirrorTheOpenAPIDocument(t *testing.T) {
	var doc struct {
		Components struct {
			Schemas map[string]schema `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(httpapi.OpenAPIDocument(), &doc); err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]any{
		"UpdateAccepted": client.UpdateAccepted{}, "Commit": client.Commit{}, "UpdateStatus": client.UpdateStatus{},
		"ExportRequest": client.ExportRequest{}, "JobError": client.JobError{}, "ExportJob": client.ExportJob{},
		"Bundle": client.Bundle{}, "FieldError": client.FieldError{},
		"Project": client.Project{}, "Deployment": client.Deployment{}, "ProjectPatch": client.ProjectPatch{},
		"WebhookRequest": client.WebhookRequest{}, "Webhook": client.Webhook{}, "CreatedWebhook": client.CreatedWebhook{},
		"DeliveryAttempt": client.DeliveryAttempt{}, "Delivery": client.Delivery{}, "EventPayload": client.EventPayload{},
		"AnalyticsViews": client.AnalyticsViews{}, "AnalyticsViewCount": client.AnalyticsViewCount{}, "AnalyticsViewDay": client.AnalyticsViewDay{},
		"AnalyticsPageViews": client.AnalyticsPageViews{}, "AnalyticsReferrer": client.AnalyticsReferrer{},
		"AnalyticsSearches": client.AnalyticsSearches{}, "AnalyticsSearchTotals": client.AnalyticsSearchTotals{},
		"AnalyticsSearchDay": client.AnalyticsSearchDay{}, "AnalyticsQuery": client.AnalyticsQuery{}, "AnalyticsNoResultQuery": client.AnalyticsNoResultQuery{},
		"AnalyticsFeedback": client.AnalyticsFeedback{}, "AnalyticsVotes": client.AnalyticsVotes{}, "AnalyticsFeedbackDay": client.AnalyticsFeedbackDay{},
		"AnalyticsPageFeedback": client.AnalyticsPageFeedback{}, "AnalyticsComment": client.AnalyticsComment{},
		"AnalyticsAssistant": client.AnalyticsAssistant{}, "AnalyticsAssistantTotals": client.AnalyticsAssistantTotals{},
		"AnalyticsQuestion": client.AnalyticsQuestion{}, "AnalyticsCitedPage": client.AnalyticsCitedPage{},
	} {
		s, ok := doc.Components.Schemas[name]
		if !ok {
			t.Errorf("no schema %s in the document", name)
			continue
		}
		typ := reflect.TypeOf(v)
		fields := map[string]reflect.StructField{}
		for i := range typ.NumField() {
			f := typ.Field(i)
			tag, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			fields[tag] = f
			if _, ok := s.Properties[tag]; !ok {
				t.Errorf("%s.%s (%q) is not a property of schema %s", typ.Name(), f.Name, tag, name)
				continue
			}
			if omit := strings.Contains(opts, "omitempty"); omit == slices.Contains(s.Required, tag) {
				t.Errorf("%s.%s: omitempty is %v, but required is %v", typ.Name(), f.Name, omit, !omit)
			}
		}
		for prop, p := range s.Properties {
			f, ok := fields[prop]
			if !ok {
				t.Errorf("schema %s has property %s, which %s lacks", name, prop, typ.Name())
				continue
			}
			got := f.Type.String()
			if f.Type.Kind() == reflect.Pointer && !slices.Contains(s.Required, prop) && !strings.HasPrefix(goType(p), "*") {
				got = f.Type.Elem().String() // an optional property told apart from its zero value
			}
			if want := goType(p); want != "" && got != want {
				t.Errorf("%s.%s is %s; schema %s.%s wants %s", typ.Name(), f.Name, f.Type, name, prop, want)
			}
		}
	}
}

type schema struct {
	Type       any               `json:"type"`
	Format     string            `json:"format"`
	Ref        string            `json:"$ref"`
	OneOf      []schema          `json:"oneOf"`
	Items      *schema           `json:"items"`
	Enum       []string          `json:"enum"`
	Required   []string          `json:"required"`
	Properties map[string]schema `json:"properties"`
}

// goType is the Go type a property's values decode into; "" when the
// test does not decide.
func goType(p schema) string {
	nullable := false
	typ, _ := p.Type.(string)
	if list, ok := p.Type.([]any); ok {
		for _, x := range list {
			if x == "null" {
				nullable = true
			} else {
				typ, _ = x.(string)
			}
		}
	}
	refs := 0
	for _, o := range p.OneOf {
		if o.Ref != "" {
			refs++
		}
	}
	for _, o := range p.OneOf {
		if o.Type == "null" {
			nullable = true
		} else if o.Ref != "" && refs == 1 {
			return "*client." + strings.TrimPrefix(o.Ref, "#/components/schemas/")
		}
	}
	if refs > 1 {
		return "" // one of several types: raw JSON or an interface
	}
	ptr := ""
	if nullable {
		ptr = "*"
	}
	switch {
	case typ == "string" && p.Format == "date-time":
		return ptr + reflect.TypeOf(time.Time{}).String()
	case typ == "string" && len(p.Enum) > 0:
		return "" // a named string type
	case typ == "string":
		return ptr + "string"
	case typ == "integer":
		return "" // int or int64
	case typ == "array" && p.Items != nil && p.Items.Type == "string":
		return "[]string"
	case typ == "array" && p.Items != nil && p.Items.Ref != "":
		return "[]client." + strings.TrimPrefix(p.Items.Ref, "#/components/schemas/")
	}
	return ""
}

// Every code of the document's Problem schema is a constant of the
// package, and the other way round.
func TestCodesMirrorTheOpenAPIDocument(t *testing.T) {
	var doc struct {
		Components struct {
			Schemas struct {
				Problem schema `json:"Problem"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(httpapi.OpenAPIDocument(), &doc); err != nil {
		t.Fatal(err)
	}
	codes := []string{client.CodeUnauthorized, client.CodeInvalidAPIKey, client.CodeBrowserOrigin, client.CodePlanRequired,
		client.CodeInvalidRequest, client.CodeUnsupportedMediaType, client.CodeRequestTooLarge, client.CodeNotFound,
		client.CodeJobNotCompleted, client.CodeJobFailed, client.CodeExportInProgress, client.CodeRateLimited, client.CodeInternal,
		client.CodeIdempotencyReused, client.CodeIdempotencyInUse, client.CodeMethodNotAllowed, client.CodeUnavailable, client.CodeConflict}
	enum := doc.Components.Schemas.Problem.Properties["code"].Enum
	slices.Sort(codes)
	slices.Sort(enum)
	if !slices.Equal(codes, enum) {
		t.Fatalf("the package's codes\n%v\nthe document's\n%v", codes, enum)
	}
}
