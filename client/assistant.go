package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// AssistantMessage is a turn of a conversation with the assistant: Role
// "user" (the reader) or "assistant".
type AssistantMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Citation is a source an answer cites as [N]: a page's title (and
// section) and its path in the site, with the section's anchor.
type Citation struct {
	N     int    `json:"n"`
	Title string `json:"title"`
	URL   string `json:"url"`
}

// AssistantAnswer is the whole answer of Ask.
type AssistantAnswer struct {
	// Text is the answer's Markdown, citing its sources as [n].
	Text      string
	Citations []Citation
	// Found is false when the docs hold no answer (Text then says so).
	Found bool
}

// maxAnswerBytes bounds the event stream Ask reads.
const maxAnswerBytes = 1 << 20

// Ask asks the assistant of the organization's live site at domain
// (POST /v1/assistant/{domain}/message), with the conversation so far:
// the question last. onText, when not nil, is called with each piece of
// the answer's text as it streams. It returns the whole answer.
//
// Ask is not retried once the answer has started; a refusal before it
// (429, 503) is retried as other calls are. An unknown domain, or one of
// another organization, is an *Error with Code CodeNotFound.
func (c *Client) Ask(ctx context.Context, domain string, messages []AssistantMessage, onText func(string)) (*AssistantAnswer, error) {
	body, err := json.Marshal(map[string]any{"messages": messages})
	if err != nil {
		return nil, err
	}
	path := "/assistant/" + url.PathEscape(domain) + "/message"
	for attempt := 1; ; attempt++ {
		a, wait, retry, err := c.ask(ctx, path, body, onText, attempt)
		if err == nil || !retry || attempt >= c.maxAttempts {
			return a, err
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			return nil, err
		}
		if serr := c.sleep(ctx, wait); serr != nil {
			return nil, fmt.Errorf("%w, while waiting to retry after: %w", serr, err)
		}
	}
}

func (c *Client) ask(ctx context.Context, path string, body []byte, onText func(string), n int) (*AssistantAnswer, time.Duration, bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base.String()+path, bytes.NewReader(body))
	if err != nil {
		return nil, 0, false, err
	}
	h := req.Header
	h.Set("Authorization", "Bearer "+c.key)
	h.Set("Accept", "text/event-stream, application/problem+json")
	h.Set("User-Agent", c.userAgent)
	h.Set("Content-Type", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, 0, false, fmt.Errorf("POST %s: %w", c.base.Path+path, ctx.Err())
		}
		return nil, c.backoff(n), true, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
		e := errorFromResponse(resp, raw)
		wait, retry := c.retryable(e, n)
		return nil, wait, retry, e
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		return nil, 0, false, fmt.Errorf("POST %s: the answer is %q, not an event stream", c.base.Path+path, ct)
	}
	a, err := readAnswer(io.LimitReader(resp.Body, maxAnswerBytes), onText)
	if err != nil {
		return a, 0, false, fmt.Errorf("POST %s: %w", c.base.Path+path, err)
	}
	return a, 0, false, nil
}

// readAnswer reads the answer's events until "done".
func readAnswer(r io.Reader, onText func(string)) (*AssistantAnswer, error) {
	a := &AssistantAnswer{}
	var text strings.Builder
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxAnswerBytes)
	event := ""
	for sc.Scan() {
		line := sc.Text()
		if name, ok := strings.CutPrefix(line, "event: "); ok {
			event = name
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var err error
		switch event {
		case "text":
			var v struct{ Text string }
			if err = json.Unmarshal([]byte(data), &v); err == nil {
				text.WriteString(v.Text)
				if onText != nil {
					onText(v.Text)
				}
			}
		case "citation":
			var c Citation
			if err = json.Unmarshal([]byte(data), &c); err == nil {
				a.Citations = append(a.Citations, c)
			}
		case "done":
			var v struct{ Found bool }
			if err = json.Unmarshal([]byte(data), &v); err == nil {
				a.Text, a.Found = text.String(), v.Found
				return a, nil
			}
		}
		if err != nil {
			return nil, fmt.Errorf("the %s event is not the expected JSON: %w", event, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading the answer: %w", err)
	}
	return nil, errors.New("the answer ended before its done event")
}
