package lectern

import (
	"strings"
	"time"
	"unicode/utf8"
)

// AssistantSource says where a question to the docs assistant was asked.
type AssistantSource string

// The sources of questions.
const (
	AssistantFromSite AssistantSource = "site" // a live site's widget
	AssistantFromAPI  AssistantSource = "api"  // the API
	AssistantFromMCP  AssistantSource = "mcp"  // an MCP client
)

// Bounds of a stored AssistantMessage. Text beyond them is cut (see
// AssistantMessage.Bound), never refused: the record of an answer given is
// worth more than its tail.
const (
	// MaxAssistantQuestion is the most characters (runes) of a question
	// kept; the assistant's handlers refuse longer ones already.
	MaxAssistantQuestion = 2000
	// MaxAssistantAnswer is the most bytes of an answer kept.
	MaxAssistantAnswer = 16 << 10
	// MaxAssistantCitations is the most citations kept, the first ones.
	MaxAssistantCitations = 10
	// MaxCitationTitle and MaxCitationURL bound a citation's title and
	// URL, in bytes.
	MaxCitationTitle = 300
	MaxCitationURL   = 2048
	// MaxAssistantDomain and MaxAssistantModel bound the domain asked and
	// the model's name, in bytes.
	MaxAssistantDomain = 253
	MaxAssistantModel  = 100
)

// AssistantMessage is a question a reader asked the docs assistant and the
// answer it gave, kept for analytics.
type AssistantMessage struct {
	ID        string `json:"id"` // ask_
	OrgID     string `json:"-"`
	ProjectID string `json:"projectId"`
	// Domain is the docs host asked, "" for a question through the API.
	Domain   string          `json:"domain"`
	Source   AssistantSource `json:"source"`
	Question string          `json:"question"`
	// Answer is the answer's Markdown text as the reader got it.
	Answer    string              `json:"answer"`
	Citations []AssistantCitation `json:"citations"`
	// Found reports whether the docs held an answer.
	Found bool `json:"found"`
	// Model is the model that wrote the answer, "" for an extractive one.
	Model string `json:"model"`
	// Helpful is the reader's verdict, nil until they give one.
	Helpful   *bool     `json:"helpful"`
	CreatedAt time.Time `json:"createdAt"`
}

// AssistantCitation is a page an answer cites.
type AssistantCitation struct {
	Title string `json:"title"`
	URL   string `json:"url"`
}

// Bound brings m within the bounds above, in place, as the stores keep it:
// text made valid UTF-8 without NUL characters (each bad byte sequence and
// NUL becomes U+FFFD), then each text longer than its bound cut at a rune
// boundary and ended with "…" within the bound; citations after the
// first MaxAssistantCitations dropped; nil Citations made empty. It
// refuses (EINVALID) only what no caller should send: an empty question
// or an unknown source.
func (m *AssistantMessage) Bound() error {
	switch m.Source {
	case AssistantFromSite, AssistantFromAPI, AssistantFromMCP:
	default:
		return Errorf(EINVALID, "unknown assistant source %q: use site, api or mcp", m.Source)
	}
	if strings.TrimSpace(m.Question) == "" {
		return Errorf(EINVALID, "an assistant message needs a question")
	}
	m.Question = clipRunes(cleanText(m.Question), MaxAssistantQuestion)
	m.Answer = clipBytes(cleanText(m.Answer), MaxAssistantAnswer)
	m.Domain = clipBytes(cleanText(m.Domain), MaxAssistantDomain)
	m.Model = clipBytes(cleanText(m.Model), MaxAssistantModel)
	cs := make([]AssistantCitation, 0, min(len(m.Citations), MaxAssistantCitations))
	for _, c := range m.Citations[:min(len(m.Citations), MaxAssistantCitations)] {
		cs = append(cs, AssistantCitation{Title: clipBytes(cleanText(c.Title), MaxCitationTitle), URL: clipBytes(cleanText(c.URL), MaxCitationURL)})
	}
	m.Citations = cs
	return nil
}

// ellipsis ends a text that was cut.
const ellipsis = "…"

// cleanText replaces invalid UTF-8 and NUL characters with U+FFFD, which
// every store can keep.
func cleanText(s string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}

// clipBytes cuts s, valid UTF-8, to at most n bytes (n > len(ellipsis)):
// as it is when it fits, else its longest prefix ending on a rune
// boundary that leaves room for the ellipsis after it.
func clipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len(ellipsis)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + ellipsis
}

// clipRunes cuts s, valid UTF-8, to at most n runes (n > 1): its first
// n-1 and the ellipsis when it is longer.
func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for range n - 1 {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i] + ellipsis
}
