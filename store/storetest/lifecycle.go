package storetest

import (
	"context"
	"testing"

	"lectern.dev/lectern/store"
)

var lifecycleCases = []testCase{
	{"Ping", testPing},
	{"CloseTwice", testCloseTwice},
}

func testPing(t *testing.T, s store.Store) {
	must(t, s.Ping(t.Context()), "Ping")
	newOrg(t, s)
	must(t, s.Ping(context.Background()), "Ping")
}

func testCloseTwice(t *testing.T, s store.Store) {
	newOrg(t, s)
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}
