package buildproc

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"lectern.dev/lectern/render"
	"lectern.dev/lectern/render/features"
	"lectern.dev/lectern/render/limits"
)

// Every render.Options field either crosses to the child whole or is
// named in wireLeftOut: a field added later cannot be dropped silently.
func TestWireRequestCarriesOptions(t *testing.T) {
	f := features.All()
	in := render.Options{BasePath: "/docs", Export: true, SiteURL: "https://docs.acme.test", Features: &f,
		Limits: limits.Limits{MaxPages: 7}, CustomScripts: true}
	data, err := json.Marshal(newWireRequest(Request{Options: in}))
	if err != nil {
		t.Fatal(err)
	}
	var w wireRequest
	if err := json.Unmarshal(data, &w); err != nil {
		t.Fatal(err)
	}
	got, want := reflect.ValueOf(w.options()), reflect.ValueOf(in)
	typ := got.Type()
	for i := range typ.NumField() {
		name := typ.Field(i).Name
		if slices.Contains(wireLeftOut, name) {
			continue
		}
		if got.Field(i).IsZero() {
			t.Errorf("render.Options.%s: not set in this test, or not carried to the child (newWireRequest, options) nor named in wireLeftOut", name)
			continue
		}
		if !reflect.DeepEqual(got.Field(i).Interface(), want.Field(i).Interface()) {
			t.Errorf("render.Options.%s = %v in the child, want %v", name, got.Field(i).Interface(), want.Field(i).Interface())
		}
	}
}
