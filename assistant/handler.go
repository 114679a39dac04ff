package assistant

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"

	"lectern.dev/lectern/render/search"
)

// Request bounds: the body, the turns, a question.
const (
	MaxBody      = 32 << 10
	maxMessages  = 40
	MaxQuestion  = 2000
	maxPassages  = 6
	eventsHeader = "text/event-stream; charset=utf-8"
)

// Message is a turn of the conversation.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Request is the body of an assistant request: the conversation, the
// reader's question last.
type Request struct {
	Messages []Message `json:"messages"`
}

// ParseRequest reads a request body and returns the question (the last
// message, the user's), or an error that says what is wrong with it.
func ParseRequest(body []byte) (string, error) {
	var req Request
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return "", errors.New(`the body must be JSON: {"messages": [{"role": "user", "content": "..."}]}`)
	}
	if _, err := dec.Token(); err != io.EOF {
		return "", errors.New("the body has data after the JSON object")
	}
	n := len(req.Messages)
	switch {
	case n == 0:
		return "", errors.New(`"messages" must hold the question, last, as {"role": "user", "content": "..."}`)
	case n > maxMessages:
		return "", errors.New(`"messages" holds more than 40 turns: send the latest ones`)
	}
	for _, m := range req.Messages {
		if m.Role != "user" && m.Role != "assistant" {
			return "", errors.New(`a message's "role" is "user" or "assistant"`)
		}
		if !utf8.ValidString(m.Content) {
			return "", errors.New("a message is not valid UTF-8")
		}
	}
	last := req.Messages[n-1]
	q := strings.TrimSpace(last.Content)
	switch {
	case last.Role != "user":
		return "", errors.New(`the last message must be the reader's ("role": "user")`)
	case q == "":
		return "", errors.New("the question is empty")
	case utf8.RuneCountInString(q) > MaxQuestion:
		return "", errors.New("the question is longer than 2,000 characters")
	}
	return q, nil
}

// Serve answers the question of a POST request from ix, streamed as
// server-sent events (WriteEvents); a bad request is a 400 with a JSON
// error saying why.
func Serve(w http.ResponseWriter, r *http.Request, ix *search.Index) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	if err != nil {
		badRequest(w, http.StatusRequestEntityTooLarge, "the body is larger than 32 KiB")
		return
	}
	q, err := ParseRequest(body)
	if err != nil {
		badRequest(w, http.StatusBadRequest, err.Error())
		return
	}
	ps, err := Retrieve(ix, q, maxPassages)
	if err != nil {
		badRequest(w, http.StatusServiceUnavailable, "the docs' index cannot be read; try again shortly")
		return
	}
	a := Extract(q, ps)
	h := w.Header()
	h.Set("Content-Type", eventsHeader)
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	flush := func() {}
	if f, ok := w.(http.Flusher); ok {
		flush = f.Flush
	}
	WriteEvents(w, flush, a)
}

// badRequest writes an error the widget shows: {"error": msg}.
func badRequest(w http.ResponseWriter, status int, msg string) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"error": msg})
}
