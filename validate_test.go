package memd

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// Every refusal of a Validate wraps ErrBadRequest and names what to send.
func TestValidate(t *testing.T) {
	day := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	user := []Message{{Role: RoleUser, Content: "tomatoes?"}}
	cases := []struct {
		name string
		err  error
		says string // "" for a request that passes
	}{
		{"recall", (&RecallRequest{Query: "tomatoes"}).Validate(), ""},
		{"empty query", (&RecallRequest{Query: "  "}).Validate(), `"query" is empty`},
		{"long query", (&RecallRequest{Query: strings.Repeat("a", MaxQueryBytes+1)}).Validate(), "over the 8192-byte limit"},
		{"k", (&RecallRequest{Query: "x", K: MaxK + 1}).Validate(), `"k" is 1001`},
		{"relative folder", (&RecallRequest{Query: "x", Filters: Filters{Folder: "notes"}}).Validate(), `"filters.folder" is "notes"`},
		{"dates", (&RecallRequest{Query: "x", Filters: Filters{ModifiedAfter: day, ModifiedBefore: day}}).Validate(), "no note can match"},
		{"excerpt", (&RecallRequest{Query: "x", Excerpt: &Excerpt{Lines: 2}}).Validate(), ""},
		{"excerpt lines", (&RecallRequest{Query: "x", Excerpt: &Excerpt{Lines: -1}}).Validate(), `"excerpt.lines" is -1`},
		{"excerpt width", (&RecallRequest{Query: "x", Excerpt: &Excerpt{Width: MaxExcerpt.Width + 1}}).Validate(), `"excerpt.width" is 10001`},
		{"chat", (&ChatRequest{Messages: user}).Validate(), ""},
		{"no messages", (&ChatRequest{}).Validate(), `"messages" is empty`},
		{"role", (&ChatRequest{Messages: []Message{{Role: "bot", Content: "x"}}}).Validate(), `has role "bot"`},
		{"last turn", (&ChatRequest{Messages: []Message{{Role: RoleAssistant, Content: "x"}}}).Validate(), "must be a user turn"},
		{"chat k", (&ChatRequest{Messages: user, K: MaxChatK + 1}).Validate(), `"k" is 51`},
		{"stop", (&ChatRequest{Messages: user, Stop: []string{""}}).Validate(), "stop string"},
		{"chat filters", (&ChatRequest{Messages: user, Filters: Filters{PathPrefix: "a/"}}).Validate(), `"filters.path_prefix"`},
		{"temperature", (&ChatRequest{Messages: user, Sampling: Sampling{Temperature: 6}}).Validate(), `"temperature" is 6`},
		{"path", PathBody{Path: "/n/a.md"}.Validate(), ""},
		{"no path", PathBody{}.Validate(), `"path" is missing`},
		{"relative path", PathBody{Path: "a.md"}.Validate(), `path "a.md" is relative`},
	}
	for _, c := range cases {
		switch {
		case c.says == "" && c.err != nil:
			t.Errorf("%s: refused: %v", c.name, c.err)
		case c.says != "" && (!errors.Is(c.err, ErrBadRequest) || !strings.Contains(c.err.Error(), c.says)):
			t.Errorf("%s: %v, want a bad request that says %q", c.name, c.err, c.says)
		}
	}
}

// An *Error from the wire matches the error kind of its code.
func TestErrorIs(t *testing.T) {
	for code, kind := range map[string]error{CodeBadRequest: ErrBadRequest, CodeNotFound: ErrNotFound,
		CodeUnknownFolder: ErrUnknownFolder, CodeUnavailable: ErrUnavailable, CodeBusy: ErrBusy} {
		e := &Error{Code: code}
		if !errors.Is(e, kind) || errors.Is(&Error{Code: CodeInternal}, kind) {
			t.Errorf("%s does not match %v alone", code, kind)
		}
	}
	if !errors.Is(&BusyError{}, ErrBusy) {
		t.Error("BusyError is not ErrBusy")
	}
}
