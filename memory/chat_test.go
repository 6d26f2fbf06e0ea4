package memory

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/memd-dev/memd"
)

func chatService(t testing.TB, g *fakeGenerator, o ChatOptions) *Service {
	t.Helper()
	db := storeWith(t,
		testNote{path: "/a/garden.md", mtime: day, texts: []string{
			"Tomatoes need full sun and regular watering.",
			"Compost improves the soil of the vegetable garden."}},
		testNote{path: "/a/work.md", mtime: day, texts: []string{
			"The quarterly report is due on Friday.",
			"Watering schedule for the office plants: Mondays."}},
	)
	cfg := Config{DB: db, Chat: o}
	if g != nil {
		cfg.Generator = g
	}
	return New(cfg)
}

func ask(q string) []memd.Message { return []memd.Message{{Role: memd.RoleUser, Content: q}} }

func TestChatStreamsSourcesBeforeTextAndCites(t *testing.T) {
	g := &fakeGenerator{Answer: "Water them often [2] and give sun [1]. See [9]."}
	s := chatService(t, g, ChatOptions{})
	var events []memd.ChatEvent
	res, err := s.Chat(context.Background(), memd.ChatRequest{Messages: ask("watering tomatoes")}, func(ev memd.ChatEvent) error {
		events = append(events, ev)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(events) < 2 || events[0].Type != memd.ChatSources {
		t.Fatalf("first event %+v; want the sources before any text", events)
	}
	var text strings.Builder
	for _, ev := range events[1:] {
		if ev.Type != memd.ChatDelta {
			t.Fatalf("event %+v after the first; want only deltas", ev)
		}
		text.WriteString(ev.Delta)
	}
	if text.String() != g.Answer || res.Message.Content != g.Answer || res.Message.Role != memd.RoleAssistant {
		t.Fatalf("streamed %q, result %+v; want %q", text.String(), res.Message, g.Answer)
	}
	if len(res.Sources) != 2 || fmt.Sprint(events[0].Sources) != fmt.Sprint(res.Sources) {
		t.Fatalf("sources %+v (streamed %+v); want the two watering chunks", res.Sources, events[0].Sources)
	}
	if res.Sources[0].Path != "/a/garden.md" || res.Sources[0].N != 1 || res.Sources[1].Path != "/a/work.md" || res.Sources[1].N != 2 {
		t.Fatalf("sources %+v; want garden then work, numbered 1 and 2", res.Sources)
	}
	want := []memd.Citation{
		{N: 2, Path: "/a/work.md", StartLine: 11, EndLine: 19, Heading: []string{}, ChunkID: res.Sources[1].ChunkID},
		{N: 1, Path: "/a/garden.md", StartLine: 1, EndLine: 9, Heading: []string{}, ChunkID: res.Sources[0].ChunkID},
	}
	if fmt.Sprint(res.Citations) != fmt.Sprint(want) {
		t.Fatalf("citations %+v\nwant %+v ([9] names no source)", res.Citations, want)
	}
	p := g.lastPrompt()
	for _, part := range []string{"[1] garden.md (lines 1–9) Tomatoes need full sun", "[2] work.md (lines 11–19) Watering schedule", "Question: watering tomatoes"} {
		if !strings.Contains(p, part) {
			t.Errorf("prompt lacks %q:\n%s", part, p)
		}
	}
	if strings.HasPrefix(p, fakeBOS+" "+fakeBOS) {
		t.Errorf("prompt starts with two BOS tokens: %s", p)
	}
	if r := g.reqs[0]; r.Adapter != "" || r.Priority != 1 || r.MaxTokens != memd.DefaultChatMaxTokens {
		t.Errorf("completion request adapter %q priority %v max %d; want base model, interactive, %d", r.Adapter, r.Priority, r.MaxTokens, memd.DefaultChatMaxTokens)
	}
	if res.Usage.CompletionTokens == 0 || res.Usage.PromptTokens != len(g.reqs[0].Tokens) || res.Finish != memd.FinishStop || res.Model != "fake-gemma" {
		t.Errorf("result %+v", res)
	}
}

func TestChatWithoutGenerator(t *testing.T) {
	s := chatService(t, nil, ChatOptions{})
	_, err := s.Chat(context.Background(), memd.ChatRequest{Messages: ask("watering")}, nil)
	if !errors.Is(err, memd.ErrUnavailable) || !strings.Contains(err.Error(), "--generator") || !strings.Contains(err.Error(), "memctl model set generator") {
		t.Fatalf("error %v; want ErrUnavailable saying how to configure a generator", err)
	}
	if _, err := s.Recall(context.Background(), memd.RecallRequest{Query: "watering"}); err != nil {
		t.Fatalf("recall without a generator: %v", err)
	}
}

func TestChatPlain(t *testing.T) {
	g := &fakeGenerator{}
	s := chatService(t, g, ChatOptions{})
	off := false
	var sources []memd.Source
	res, err := s.Chat(context.Background(), memd.ChatRequest{Messages: []memd.Message{
		{Role: memd.RoleSystem, Content: "Be brief."}, {Role: memd.RoleUser, Content: "watering tomatoes"}}, Memory: &off},
		func(ev memd.ChatEvent) error {
			if ev.Type == memd.ChatSources {
				sources = ev.Sources
			}
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if sources == nil || len(sources) != 0 || len(res.Sources) != 0 {
		t.Fatalf("plain chat sent sources %v / %v; want an empty sources event", sources, res.Sources)
	}
	if p := g.lastPrompt(); p != "<bos> <system> Be brief. <user> watering tomatoes <assistant>" {
		t.Fatalf("plain prompt %q", p)
	}
}

func TestChatBudgetDropsLowestRankedSources(t *testing.T) {
	g := &fakeGenerator{}
	s := chatService(t, g, ChatOptions{})
	full, err := s.Chat(context.Background(), memd.ChatRequest{Messages: ask("watering tomatoes"), MaxTokens: 1}, nil)
	if err != nil || len(full.Sources) != 2 {
		t.Fatalf("%v, %d sources", err, len(full.Sources))
	}
	// A context that holds the prompt with one source but not two.
	g.Context = full.Usage.PromptTokens - 3 + 1
	res, err := s.Chat(context.Background(), memd.ChatRequest{Messages: ask("watering tomatoes"), MaxTokens: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Sources) != 1 || res.Sources[0].Path != "/a/garden.md" {
		t.Fatalf("sources %+v; want only the best-ranked one", res.Sources)
	}
	if res.Usage.PromptTokens > g.Context-1 || !strings.Contains(strings.Join(res.Warnings, " "), "1 recalled chunks did not fit") {
		t.Fatalf("prompt %d tokens for a budget of %d; warnings %q", res.Usage.PromptTokens, g.Context-1, res.Warnings)
	}
}

func TestChatBudgetCutsOldestTurns(t *testing.T) {
	g := &fakeGenerator{Context: 150}
	s := chatService(t, g, ChatOptions{})
	long := strings.Repeat("word ", 40)
	conv := []memd.Message{
		{Role: memd.RoleSystem, Content: "Be brief."},
		{Role: memd.RoleUser, Content: "first " + long}, {Role: memd.RoleAssistant, Content: "reply one " + long},
		{Role: memd.RoleUser, Content: "second question"}, {Role: memd.RoleAssistant, Content: "reply two"},
		{Role: memd.RoleUser, Content: "watering tomatoes"},
	}
	res, err := s.Chat(context.Background(), memd.ChatRequest{Messages: conv, MaxTokens: 20}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := g.lastPrompt()
	if strings.Contains(p, "first") || strings.Contains(p, "reply one") || !strings.Contains(p, "second question") ||
		!strings.Contains(p, "Be brief.") || !strings.Contains(p, "Question: watering tomatoes") {
		t.Fatalf("prompt %q; want the oldest exchange cut, the system turn and the rest kept", p)
	}
	if strings.Contains(p, "<assistant> reply one") || len(res.Sources) != 0 {
		t.Fatalf("prompt %q sources %d", p, len(res.Sources))
	}
	if res.Usage.PromptTokens > 130 || !strings.Contains(strings.Join(res.Warnings, " "), "oldest turns") {
		t.Fatalf("prompt of %d tokens, warnings %q", res.Usage.PromptTokens, res.Warnings)
	}

	g.Context = 80
	_, err = s.Chat(context.Background(), memd.ChatRequest{Messages: ask(long + long), MaxTokens: 10}, nil)
	if !errors.Is(err, memd.ErrBadRequest) || !strings.Contains(err.Error(), "shorter message") {
		t.Fatalf("a last turn over the context: %v; want ErrBadRequest", err)
	}
}

func TestChatRefusesBadRequests(t *testing.T) {
	s := chatService(t, &fakeGenerator{}, ChatOptions{Sessions: -1})
	cases := map[string]memd.ChatRequest{
		"no messages":     {},
		"ends with model": {Messages: []memd.Message{{Role: memd.RoleUser, Content: "a"}, {Role: memd.RoleAssistant, Content: "b"}}},
		"empty question":  {Messages: ask("  ")},
		"bad role":        {Messages: []memd.Message{{Role: "tool", Content: "x"}, {Role: memd.RoleUser, Content: "a"}}},
		"k":               {Messages: ask("a"), K: memd.MaxChatK + 1},
		"max tokens":      {Messages: ask("a"), MaxTokens: -1},
		"stops":           {Messages: ask("a"), Stop: make([]string, memd.MaxStops+1)},
		"empty stop":      {Messages: ask("a"), Stop: []string{""}},
		"temperature":     {Messages: ask("a"), Sampling: memd.Sampling{Temperature: -1}},
		"sessions off":    {Messages: ask("a"), SessionID: "s1"},
	}
	for name, r := range cases {
		if _, err := s.Chat(context.Background(), r, nil); !errors.Is(err, memd.ErrBadRequest) {
			t.Errorf("%s: %v; want ErrBadRequest", name, err)
		}
	}
}

func TestChatBusyAndCancel(t *testing.T) {
	g := &fakeGenerator{Gate: make(chan struct{}), started: make(chan struct{}, 4)}
	s := chatService(t, g, ChatOptions{MaxInFlight: 1, RetryAfter: 3 * time.Second})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := s.Chat(ctx, memd.ChatRequest{Messages: ask("watering")}, nil)
		done <- err
	}()
	<-g.started
	_, err := s.Chat(context.Background(), memd.ChatRequest{Messages: ask("watering")}, nil)
	var busy *memd.BusyError
	if !errors.As(err, &busy) || !errors.Is(err, memd.ErrBusy) || busy.RetryAfter != 3*time.Second {
		t.Fatalf("second chat over the limit: %v; want a BusyError", err)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled chat: %v", err)
	}
	if n := s.ChatsInFlight(); n != 0 {
		t.Fatalf("%d chats in flight after the cancel; the slot was not freed", n)
	}
	close(g.Gate)
	if _, err := s.Chat(context.Background(), memd.ChatRequest{Messages: ask("watering")}, nil); err != nil {
		t.Fatalf("chat after the cancel freed the slot: %v", err)
	}
}

func TestChatSinkErrorStopsGeneration(t *testing.T) {
	g := &fakeGenerator{Answer: "one two three four"}
	s := chatService(t, g, ChatOptions{})
	gone := errors.New("client gone")
	deltas := 0
	res, err := s.Chat(context.Background(), memd.ChatRequest{Messages: ask("watering")}, func(ev memd.ChatEvent) error {
		if ev.Type == memd.ChatDelta {
			deltas++
			return gone
		}
		return nil
	})
	if !errors.Is(err, gone) || deltas != 1 || res.Finish != memd.FinishCancelled {
		t.Fatalf("err %v after %d deltas, finish %q; want the sink's error after one", err, deltas, res.Finish)
	}
}

func TestChatSessions(t *testing.T) {
	g := &fakeGenerator{Answer: "Sun."}
	s := chatService(t, g, ChatOptions{Sessions: 2})
	for _, q := range []string{"what do tomatoes need", "and how often watering"} {
		if _, err := s.Chat(context.Background(), memd.ChatRequest{Messages: ask(q), SessionID: "s1"}, nil); err != nil {
			t.Fatal(err)
		}
	}
	p := g.lastPrompt()
	if !strings.Contains(p, "<user> what do tomatoes need <assistant> Sun. <user>") {
		t.Fatalf("second prompt of the session lacks the first exchange:\n%s", p)
	}
	// Follow-ups recall with the previous question as context.
	if q := recallQuery(s.chat.sessions.history("s1")); !strings.Contains(q, "what do tomatoes need") || !strings.Contains(q, "how often") {
		t.Fatalf("recall query %q", q)
	}
	for _, id := range []string{"s2", "s3"} {
		if _, err := s.Chat(context.Background(), memd.ChatRequest{Messages: ask("x"), SessionID: id}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if n := s.chat.sessions.len(); n != 2 || s.chat.sessions.history("s1") != nil {
		t.Fatalf("%d sessions kept, s1 %v; want the least recently used dropped at the cap", n, s.chat.sessions.history("s1"))
	}
}

func TestSessionsCapTurns(t *testing.T) {
	ss := newSessions(4, 5)
	for i := range 4 {
		ss.record("a", ask(fmt.Sprint("q", i)), memd.Message{Role: memd.RoleAssistant, Content: fmt.Sprint("a", i)})
	}
	h := ss.history("a")
	if len(h) > 5 || h[0].Role != memd.RoleUser || h[len(h)-1].Content != "a3" {
		t.Fatalf("history %+v; want at most 5 turns, opening with a user turn, ending with the last answer", h)
	}
	if newSessions(-1, 5).enabled() {
		t.Fatal("negative size should turn sessions off")
	}
}

func TestCite(t *testing.T) {
	srcs := []memd.Source{{N: 1, Path: "/a"}, {N: 2, Path: "/b"}, {N: 3, Path: "/c"}}
	cases := []struct {
		text string
		want []int
	}{
		{"no citation", nil},
		{"one [1].", []int{1}},
		{"list [2, 1] and again [1]", []int{2, 1}},
		{"adjacent [3][1]", []int{3, 1}},
		{"semicolons [ 1 ; 3 ]", []int{1, 3}},
		{"range [1-3]", []int{1, 2, 3}},
		{"en dash [2–3]", []int{2, 3}},
		{"out of range [4] [0]", nil},
		{"a year range [1990-2020] and [x]", nil},
		{"markdown link [text](http://x) and [2]", []int{2}},
	}
	for _, c := range cases {
		var got []int
		for _, ct := range cite(c.text, srcs) {
			got = append(got, ct.N)
			if ct.Path != srcs[ct.N-1].Path {
				t.Errorf("%q: citation %d has path %s", c.text, ct.N, ct.Path)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("cite(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}

func TestClipKeepsUTF8(t *testing.T) {
	s := strings.Repeat("é", 100)
	for n := 1; n < 40; n++ {
		if got := clip(s, n); !strings.HasSuffix(got, " …") || !utf8Valid(got) {
			t.Fatalf("clip(%d) = %q", n, got)
		}
	}
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }
