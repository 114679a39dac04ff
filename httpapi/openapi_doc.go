package httpapi

import _ "embed"

// openAPIDocument is the OpenAPI 3.1 document of the /v1 API (openapi.json),
// served by GET /v1/openapi.json and checked against real responses by the
// tests through lectern.dev/lectern/internal/apicheck.
//
//go:embed openapi.json
var openAPIDocument []byte
