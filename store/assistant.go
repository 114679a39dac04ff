package store

import (
	"context"
	"time"

	"lectern.dev/lectern"
)

// Assistant keeps the questions readers ask the docs assistant, with its
// answers, for analytics. A deleted project's messages are gone at once
// for every method (ListAssistantMessages: none; SetAssistantFeedback:
// ENOTFOUND) and dropped by PurgeProject.
type Assistant interface {
	// RecordAssistantMessage stores m after m.Bound() (which cuts long
	// text and drops citations past the first lectern.MaxAssistantCitations;
	// EINVALID for an empty question or an unknown source, storing
	// nothing). It sets ID (ask_) and CreatedAt when empty, and OrgID to
	// the project's organization, so that m is what ListAssistantMessages
	// returns. ENOTFOUND when the project is missing or deleted, or of
	// another organization than a non-empty OrgID; ECONFLICT when the ID
	// is taken.
	RecordAssistantMessage(ctx context.Context, m *lectern.AssistantMessage) error
	// SetAssistantFeedback records whether the reader found a message's
	// answer helpful, replacing what an earlier call recorded. ENOTFOUND
	// when the message is missing or of another project than projectID
	// (the reader of one site never rates another's answers).
	SetAssistantFeedback(ctx context.Context, projectID, messageID string, helpful bool) error
	// ListAssistantMessages returns a project's messages that f selects,
	// newest first, one page of them (none for a missing project).
	ListAssistantMessages(ctx context.Context, projectID string, f AssistantFilter, pg Page) ([]*lectern.AssistantMessage, error)
	// PruneAssistantMessages drops up to limit messages, of every project,
	// created before the time given, oldest first, and returns how many it
	// dropped (a negative limit: all of them): the retention that keeps
	// analytics from growing without end.
	PruneAssistantMessages(ctx context.Context, before time.Time, limit int) (int, error)
}

// AssistantFilter selects assistant messages by creation time: at or
// after Since and before Until, when set.
type AssistantFilter struct {
	Since, Until time.Time
}
