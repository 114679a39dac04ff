// Package assistant answers readers' questions from a deployment's own
// docs. Retrieval ranks heading-level passages through the deployment's
// search index (render/search, the same files the reader's browser
// searches): the pages Index.Search ranks first, then, in each, the
// sections that hold most of the question's words. Answer builds an
// extractive answer from the best passages: the sentences that answer the
// question, quoted, each cited with its page title and URL (page#heading),
// or says that no answer was found in these docs when nothing ranks well
// enough.
//
// Serve answers one HTTP request with them; live sites route
// POST /_lectern/assistant to it (package sites). Not here yet: the
// model-written answer, selfhost's endpoint and the API route.
package assistant
