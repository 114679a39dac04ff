// Package openapi reads OpenAPI 3.0 and 3.1 documents (JSON or YAML) and
// renders their operations as static HTML reference pages in the style of
// Mintlify's API pages: method and path, description, parameters, request
// body and responses as expandable field trees with $refs resolved (cycles
// cut), a curl request example, response examples, and an optional "Try
// it" playground form driven by PlaygroundJS.
//
// The package works on the decoded document itself rather than a typed
// model, so that a document with a missing $ref or an unusual schema still
// renders, with the problems reported to the caller instead of failing.
// $refs into other files ("./schemas/pet.yaml#/Pet") are followed when the
// document is parsed with ParseFiles, which reads them through the
// caller's ReadFunc (refs.go). Nothing here touches the file system or the
// network itself, or runs code from the document.
package openapi
