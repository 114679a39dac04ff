package assistant

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"
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

// ParseRequest reads a request body and returns its conversation, the
// reader's question last (trimmed), or an error that says what is wrong
// with it.
func ParseRequest(body []byte) ([]Message, error) {
	var req Request
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return nil, errors.New(`the body must be JSON: {"messages": [{"role": "user", "content": "..."}]}`)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("the body has data after the JSON object")
	}
	n := len(req.Messages)
	switch {
	case n == 0:
		return nil, errors.New(`"messages" must hold the question, last, as {"role": "user", "content": "..."}`)
	case n > maxMessages:
		return nil, errors.New(`"messages" holds more than 40 turns: send the latest ones`)
	}
	for _, m := range req.Messages {
		if m.Role != "user" && m.Role != "assistant" {
			return nil, errors.New(`a message's "role" is "user" or "assistant"`)
		}
		if !utf8.ValidString(m.Content) {
			return nil, errors.New("a message is not valid UTF-8")
		}
	}
	last := &req.Messages[n-1]
	last.Content = strings.TrimSpace(last.Content)
	switch {
	case last.Role != "user":
		return nil, errors.New(`the last message must be the reader's ("role": "user")`)
	case last.Content == "":
		return nil, errors.New("the question is empty")
	case utf8.RuneCountInString(last.Content) > MaxQuestion:
		return nil, errors.New("the question is longer than 2,000 characters")
	}
	return req.Messages, nil
}

// ReadRequest reads and parses r's body (at most MaxBody bytes). On a
// bad body it writes the error (JSON {"error"}) and returns nil.
func ReadRequest(w http.ResponseWriter, r *http.Request) []Message {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	if err != nil {
		WriteError(w, http.StatusRequestEntityTooLarge, "the body is larger than 32 KiB")
		return nil
	}
	msgs, err := ParseRequest(body)
	if err != nil {
		WriteError(w, http.StatusBadRequest, err.Error())
		return nil
	}
	return msgs
}

// WriteError writes an error the widget shows: {"error": msg}.
func WriteError(w http.ResponseWriter, status int, msg string) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"error": msg})
}
