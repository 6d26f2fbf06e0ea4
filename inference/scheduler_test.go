package inference

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

func newTestScheduler(t *testing.T, f *fakeModel, cfg SchedulerConfig) *Scheduler {
	t.Helper()
	if cfg.Slots == 0 {
		cfg.Slots = f.nSeq
	}
	if cfg.BatchSize == 0 {
		cfg.BatchSize = f.nBatch
	}
	if cfg.ContextPerSlot == 0 {
		cfg.ContextPerSlot = 256
	}
	s, err := NewScheduler(f, f, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.Close()
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.outOfOrder > 0 {
			t.Errorf("%d batches listed a sequence after a higher one", f.outOfOrder)
		}
	})
	return s
}

// serialText is what the fake's default model writes after prompt: each
// token is the previous plus one, modulo 26.
func serialText(prompt []int32, n int) string {
	var b strings.Builder
	last := prompt[len(prompt)-1]
	for range n {
		last = (last + 1) % 26
		b.WriteByte(byte('a' + last))
	}
	return b.String()
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestSchedulerOneRequest(t *testing.T) {
	f := newFakeModel(2, 8)
	s := newTestScheduler(t, f, SchedulerConfig{})
	var pieces []string
	c, err := s.Submit(context.Background(), Request{
		Prompt:    []int32{0, 1, 2},
		MaxTokens: 5,
		OnToken:   func(p string) error { pieces = append(pieces, p); return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	if c.Text != "defgh" || c.Finish != FinishLength || c.Generated != 5 || c.PromptTokens != 3 {
		t.Fatalf("got %+v", c)
	}
	if got := strings.Join(pieces, ""); got != c.Text {
		t.Fatalf("streamed %q, text %q", got, c.Text)
	}
	if !slices.Equal(c.Tokens, []int32{3, 4, 5, 6, 7}) {
		t.Fatalf("tokens %v", c.Tokens)
	}
	if f.held(0) != 0 || f.held(1) != 0 {
		t.Fatal("slot not emptied after the request")
	}
}

func TestSchedulerEOGAndContextLimit(t *testing.T) {
	f := newFakeModel(1, 8)
	f.next = func(h []int32) int32 {
		if len(h) == 4 {
			return f.eog
		}
		return 0
	}
	s := newTestScheduler(t, f, SchedulerConfig{ContextPerSlot: 6})
	c, err := s.Submit(context.Background(), Request{Prompt: []int32{1, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if c.Finish != FinishEOG || c.Text != "aa" || c.Generated != 2 {
		t.Fatalf("eog: got %+v", c)
	}
	f.next = func(h []int32) int32 { return 0 }
	c, err = s.Submit(context.Background(), Request{Prompt: []int32{1, 1}})
	if err != nil {
		t.Fatal(err)
	}
	// Positions 0..5 hold 2 prompt tokens and 4 outputs; the 5th output
	// needs no position of its own.
	if c.Finish != FinishLength || c.Generated != 5 {
		t.Fatalf("context limit: got %+v", c)
	}
}

func TestSchedulerRejectsBadPrompts(t *testing.T) {
	f := newFakeModel(1, 8)
	s := newTestScheduler(t, f, SchedulerConfig{ContextPerSlot: 4})
	for _, tc := range []struct {
		prompt []int32
		want   error
	}{
		{nil, ErrEmptyPrompt},
		{[]int32{1, 2, 3, 4}, ErrPromptTooLong},
		{[]int32{1, 99}, ErrInvalidToken},
		{[]int32{-1}, ErrInvalidToken},
	} {
		if _, err := s.Submit(context.Background(), Request{Prompt: tc.prompt}); !errors.Is(err, tc.want) {
			t.Errorf("prompt %v: err %v, want %v", tc.prompt, err, tc.want)
		}
	}
}

func TestSchedulerReusesSlots(t *testing.T) {
	f := newFakeModel(2, 8)
	s := newTestScheduler(t, f, SchedulerConfig{})
	var wg sync.WaitGroup
	for i := range 6 {
		wg.Go(func() {
			p := []int32{int32(i)}
			c, err := s.Submit(context.Background(), Request{Prompt: p, MaxTokens: 3 + i})
			if err != nil {
				t.Error(err)
				return
			}
			if want := serialText(p, 3+i); c.Text != want {
				t.Errorf("request %d: %q, want %q", i, c.Text, want)
			}
		})
	}
	wg.Wait()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.removed) != 6 {
		t.Fatalf("slots freed %d times, want 6", len(f.removed))
	}
	for _, st := range f.steps {
		for _, tok := range st {
			if tok.Seq > 1 {
				t.Fatalf("seq %d used with 2 slots", tok.Seq)
			}
		}
	}
}

func TestSchedulerPrefillsInChunksBesideDecoders(t *testing.T) {
	f := newFakeModel(2, 8)
	f.delay = time.Millisecond
	s := newTestScheduler(t, f, SchedulerConfig{})
	ctx := context.Background()
	first := make(chan Completion, 1)
	go func() {
		c, _ := s.Submit(ctx, Request{Prompt: []int32{0}, MaxTokens: 40})
		first <- c
	}()
	waitFor(t, "first row decoding", func() bool { return s.Stats().Sampled > 0 })
	long := make([]int32, 30)
	for i := range long {
		long[i] = int32(i % 26)
	}
	c, err := s.Submit(ctx, Request{Prompt: long, MaxTokens: 2})
	if err != nil {
		t.Fatal(err)
	}
	if want := serialText(long, 2); c.Text != want {
		t.Fatalf("long prompt: %q, want %q", c.Text, want)
	}
	if c := <-first; c.Text != serialText([]int32{0}, 40) {
		t.Fatalf("decoder beside the prefill: %q", c.Text)
	}
	// The long row's seq is whichever the short row did not take.
	longSeq := int32(-1)
	chunks, shared := 0, 0
	for _, st := range f.stepLog() {
		if len(st) > 8 {
			t.Fatalf("step of %d tokens over n_batch 8", len(st))
		}
		if len(st) > 1 && longSeq < 0 {
			longSeq = st[len(st)-1].Seq
		}
		n, others := 0, 0
		for _, tok := range st {
			if tok.Seq == longSeq && !tok.Logits {
				n++
			} else if tok.Seq != longSeq {
				others++
			}
		}
		if n > 0 {
			chunks++
			if others > 0 {
				shared++
			}
		}
	}
	if chunks < 4 || shared < chunks {
		t.Fatalf("30-token prompt prefilled in %d chunks, %d beside the decoder; want >= 4, all", chunks, shared)
	}
}

// A slot freed below a decoding row and taken by a new prompt: the step
// still lists seq 0's prefill before seq 1's token (newTestScheduler's
// cleanup fails a test whose batches are out of sequence order).
func TestSchedulerBatchInSequenceOrder(t *testing.T) {
	f := newFakeModel(2, 8)
	f.delay = time.Millisecond
	s := newTestScheduler(t, f, SchedulerConfig{})
	ctx, cancel := context.WithCancel(context.Background())
	cancelled := make(chan error, 1)
	go func() {
		_, err := s.Submit(ctx, Request{Prompt: []int32{0}, MaxTokens: 200})
		cancelled <- err
	}()
	waitFor(t, "seq 0 decoding", func() bool { return s.Stats().Sampled > 0 })
	kept := make(chan Completion, 1)
	go func() {
		c, err := s.Submit(context.Background(), Request{Prompt: []int32{5}, MaxTokens: 40})
		if err != nil {
			t.Error(err)
		}
		kept <- c
	}()
	waitFor(t, "seq 1 decoding", func() bool {
		for _, st := range f.stepLog() {
			if last := st[len(st)-1]; last.Seq == 1 && last.Logits {
				return true
			}
		}
		return false
	})
	cancel()
	if err := <-cancelled; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled row: %v", err)
	}
	long := make([]int32, 30)
	for i := range long {
		long[i] = int32(i % 26)
	}
	c, err := s.Submit(context.Background(), Request{Prompt: long, MaxTokens: 2})
	if err != nil {
		t.Fatal(err)
	}
	if want := serialText(long, 2); c.Text != want {
		t.Fatalf("prompt in the freed slot: %q, want %q", c.Text, want)
	}
	if c := <-kept; c.Text != serialText([]int32{5}, 40) {
		t.Fatalf("row beside it: %q", c.Text)
	}
	mixed := 0
	for _, st := range f.stepLog() {
		if st[0].Seq == 0 && !st[0].Logits && st[len(st)-1].Seq == 1 {
			mixed++
		}
	}
	if mixed == 0 {
		t.Fatal("no step prefilled seq 0 beside seq 1's decode")
	}
}

func TestSchedulerInteractiveFirst(t *testing.T) {
	f := newFakeModel(1, 8)
	f.delay = 200 * time.Microsecond
	s := newTestScheduler(t, f, SchedulerConfig{})
	blockCtx, unblock := context.WithCancel(context.Background())
	go s.Submit(blockCtx, Request{Prompt: []int32{25}, MaxTokens: 100000})
	waitFor(t, "blocker running", func() bool { return s.Stats().Active == 1 })

	var wg sync.WaitGroup
	submit := func(tok int32, p Priority) {
		wg.Go(func() {
			if _, err := s.Submit(context.Background(), Request{Prompt: []int32{tok}, MaxTokens: 2, Priority: p}); err != nil {
				t.Error(err)
			}
		})
	}
	// Background 0,1,2 and interactive 10,11, each queued before the next.
	order := []struct {
		tok int32
		p   Priority
	}{{0, Background}, {1, Background}, {10, Interactive}, {2, Background}, {11, Interactive}}
	for i, o := range order {
		submit(o.tok, o.p)
		waitFor(t, "request queued", func() bool { return s.Stats().Queued == i+1 })
	}
	unblock()
	wg.Wait()
	var served []int32
	for _, st := range f.stepLog() {
		if tok := st[0]; tok.Pos == 0 && tok.Token != 25 {
			served = append(served, tok.Token)
		}
	}
	if want := []int32{10, 11, 0, 1, 2}; !slices.Equal(served, want) {
		t.Fatalf("served %v, want %v", served, want)
	}
}

func TestSchedulerCancelFreesSlot(t *testing.T) {
	f := newFakeModel(1, 8)
	f.delay = 100 * time.Microsecond
	s := newTestScheduler(t, f, SchedulerConfig{ContextPerSlot: 1 << 20})
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	c, err := s.Submit(ctx, Request{Prompt: []int32{0}, OnToken: func(string) error {
		if n++; n == 5 {
			cancel()
		}
		return nil
	}})
	if !errors.Is(err, context.Canceled) || c.Finish != FinishCancelled {
		t.Fatalf("got %v, %+v", err, c.Finish)
	}
	if c.Generated < 5 || !strings.HasPrefix(c.Text, "bcdef") {
		t.Fatalf("partial result %+v", c)
	}
	if f.held(0) != 0 {
		t.Fatal("cancelled row kept its cache")
	}
	c, err = s.Submit(context.Background(), Request{Prompt: []int32{3}, MaxTokens: 2})
	if err != nil || c.Text != "ef" {
		t.Fatalf("after cancel: %q, %v", c.Text, err)
	}
}

func TestSchedulerCallbackErrorCancels(t *testing.T) {
	f := newFakeModel(1, 8)
	s := newTestScheduler(t, f, SchedulerConfig{ContextPerSlot: 1 << 20})
	boom := errors.New("client gone")
	calls := 0
	c, err := s.Submit(context.Background(), Request{Prompt: []int32{0}, OnToken: func(string) error {
		calls++
		return boom
	}})
	if !errors.Is(err, boom) || c.Finish != FinishCancelled {
		t.Fatalf("got %v, %v", err, c.Finish)
	}
	if calls != 1 {
		t.Fatalf("callback called %d times after failing", calls)
	}
}

func TestSchedulerCancelWhileQueued(t *testing.T) {
	f := newFakeModel(1, 8)
	f.delay = 200 * time.Microsecond
	s := newTestScheduler(t, f, SchedulerConfig{})
	blockCtx, unblock := context.WithCancel(context.Background())
	defer unblock()
	go s.Submit(blockCtx, Request{Prompt: []int32{25}, MaxTokens: 100000})
	waitFor(t, "blocker running", func() bool { return s.Stats().Active == 1 })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	c, err := s.Submit(ctx, Request{Prompt: []int32{1}})
	if !errors.Is(err, context.DeadlineExceeded) || c.Finish != FinishCancelled || c.Timings.Queue == 0 {
		t.Fatalf("got %v, %+v", err, c)
	}
}

func TestSchedulerFailingRowFailsAlone(t *testing.T) {
	f := newFakeModel(4, 16)
	f.delay = 200 * time.Microsecond
	f.failWhen = func(b []BatchToken) error {
		for _, tok := range b {
			if tok.Token == 29 {
				return errInjected
			}
		}
		return nil
	}
	s := newTestScheduler(t, f, SchedulerConfig{})
	var wg sync.WaitGroup
	// Three healthy rows decode; then the poisoned prompt joins their steps.
	for i := range 3 {
		wg.Go(func() {
			p := []int32{int32(i), int32(i + 1)}
			c, err := s.Submit(context.Background(), Request{Prompt: p, MaxTokens: 60})
			if want := serialText(p, 60); err != nil || c.Text != want {
				t.Errorf("row %d: %q, %v; want %q", i, c.Text, err, want)
			}
		})
	}
	waitFor(t, "healthy rows decoding", func() bool { return s.Stats().Active == 3 })
	c, err := s.Submit(context.Background(), Request{Prompt: []int32{2, 29, 3}, MaxTokens: 6})
	if !errors.Is(err, errInjected) || c.Finish != FinishError {
		t.Errorf("poisoned row: %v, %v", err, c.Finish)
	}
	wg.Wait()
	for seq := range int32(4) {
		if f.held(seq) != 0 {
			t.Fatalf("seq %d not emptied", seq)
		}
	}
	shared := false
	for _, st := range f.stepLog() {
		seqs := map[int32]bool{}
		poisoned := false
		for _, tok := range st {
			seqs[tok.Seq] = true
			poisoned = poisoned || tok.Token == 29
		}
		shared = shared || (poisoned && len(seqs) > 1)
	}
	if !shared {
		t.Fatal("the poisoned prompt never shared a step: isolation was not exercised")
	}
}

func TestSchedulerKVFullShrinksPrefill(t *testing.T) {
	f := newFakeModel(2, 16)
	f.failWhen = func(b []BatchToken) error {
		if len(b) > 5 {
			return fmt.Errorf("decode: %w", ErrKVFull)
		}
		return nil
	}
	s := newTestScheduler(t, f, SchedulerConfig{})
	p := make([]int32, 40)
	c, err := s.Submit(context.Background(), Request{Prompt: p, MaxTokens: 3})
	if err != nil || c.Text != "bcd" {
		t.Fatalf("%q, %v", c.Text, err)
	}
	if s.Stats().Failures == 0 {
		t.Fatal("no failed step: the test did not exercise the retry")
	}
}

func TestSchedulerStopStringsAcrossTokens(t *testing.T) {
	// Output scripted per test: the fake writes these tokens in order.
	for _, tc := range []struct {
		name   string
		script []int32
		stop   []string
		text   string
		finish FinishReason
	}{
		{"split stop", []int32{0, 1, 29, 30, 2}, []string{"<>"}, "ab", FinishStop},
		{"stop inside one token", []int32{0, 1, 2, 3}, []string{"bc"}, "a", FinishStop},
		{"false start", []int32{0, 29, 1, 29, 30}, []string{"<>"}, "a<b", FinishStop},
		{"earliest of two", []int32{0, 1, 2, 3, 4}, []string{"de", "bc"}, "a", FinishStop},
		{"utf8 split", []int32{0, 27, 28, 1}, nil, "aéb", FinishLength},
		{"held tail flushed", []int32{0, 29}, []string{"<>"}, "a<", FinishLength},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeModel(1, 8)
			f.next = func(h []int32) int32 { return tc.script[len(h)-1] }
			s := newTestScheduler(t, f, SchedulerConfig{})
			var pieces []string
			c, err := s.Submit(context.Background(), Request{
				Prompt: []int32{5}, MaxTokens: len(tc.script), Stop: tc.stop,
				OnToken: func(p string) error { pieces = append(pieces, p); return nil },
			})
			if err != nil {
				t.Fatal(err)
			}
			if c.Text != tc.text || c.Finish != tc.finish {
				t.Fatalf("text %q finish %s, want %q %s", c.Text, c.Finish, tc.text, tc.finish)
			}
			if got := strings.Join(pieces, ""); got != tc.text {
				t.Fatalf("streamed %q, want %q", got, tc.text)
			}
			for _, p := range pieces {
				if !utf8.ValidString(p) {
					t.Fatalf("piece %q splits a character", p)
				}
			}
		})
	}
}

func TestSchedulerHidesThinking(t *testing.T) {
	// '<' (29) opens a thinking block and '>' (30) closes it; 26 is a space.
	think := Thinking{Open: 29, Close: 30}
	inside := think
	inside.Inside = true
	for _, tc := range []struct {
		name     string
		thinking *Thinking
		script   []int32
		stop     []string
		text     string
	}{
		{"blocks hidden with the whitespace after them", &think, []int32{0, 29, 1, 2, 30, 26, 26, 3, 29, 4, 30, 5}, nil, "adf"},
		{"prompt ends inside a block", &inside, []int32{1, 2, 30, 26, 3}, nil, "d"},
		{"a stop string in a thought does not stop", &think, []int32{0, 29, 1, 2, 30, 3}, []string{"bc"}, "ad"},
		{"unclosed block hides the rest", &think, []int32{0, 29, 1, 2}, nil, "a"},
		{"a stray close is hidden", &think, []int32{0, 30, 30, 26, 1}, nil, "ab"},
		{"without Thinking the markers are text", nil, []int32{0, 29, 1, 30}, nil, "a<b>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeModel(1, 8)
			f.next = func(h []int32) int32 { return tc.script[len(h)-1] }
			s := newTestScheduler(t, f, SchedulerConfig{})
			var pieces []string
			c, err := s.Submit(context.Background(), Request{
				Prompt: []int32{5}, MaxTokens: len(tc.script), Stop: tc.stop, Thinking: tc.thinking,
				OnToken: func(p string) error { pieces = append(pieces, p); return nil },
			})
			if err != nil {
				t.Fatal(err)
			}
			if c.Text != tc.text || c.Finish != FinishLength {
				t.Fatalf("text %q finish %s, want %q length", c.Text, c.Finish, tc.text)
			}
			if got := strings.Join(pieces, ""); got != tc.text {
				t.Fatalf("streamed %q, want %q", got, tc.text)
			}
			if len(c.Tokens) != len(tc.script) {
				t.Fatalf("%d tokens, want all %d (hidden ones count)", len(c.Tokens), len(tc.script))
			}
		})
	}
}

// TestSchedulerConcurrent runs 32 requests with prompts and lengths of all
// sizes through 8 slots and checks each against the model run alone. Run
// it with -race.
func TestSchedulerConcurrent(t *testing.T) {
	f := newFakeModel(8, 16)
	f.delay = 100 * time.Microsecond // so requests overlap without -race too
	// The next token depends on the whole history, so any mix-up of
	// positions or sequences changes the text.
	f.next = func(h []int32) int32 {
		var sum int32
		for i, t := range h {
			sum += t * int32(i+1)
		}
		return sum % 26
	}
	s := newTestScheduler(t, f, SchedulerConfig{})
	ref := func(p []int32, n int) string {
		h := slices.Clone(p)
		var b strings.Builder
		for range n {
			tok := f.next(h)
			h = append(h, tok)
			b.WriteString(f.pieces[tok])
		}
		return b.String()
	}
	rng := rand.New(rand.NewPCG(1, 2))
	type job struct {
		prompt []int32
		n      int
		prio   Priority
	}
	jobs := make([]job, 32)
	for i := range jobs {
		p := make([]int32, 1+rng.IntN(40))
		for k := range p {
			p[k] = int32(rng.IntN(26))
		}
		jobs[i] = job{p, 1 + rng.IntN(30), Priority(i % 2)}
	}
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Go(func() {
			var streamed strings.Builder
			c, err := s.Submit(context.Background(), Request{Prompt: j.prompt, MaxTokens: j.n, Priority: j.prio,
				OnToken: func(p string) error { streamed.WriteString(p); return nil }})
			if err != nil {
				t.Errorf("job %d: %v", i, err)
				return
			}
			if want := ref(j.prompt, j.n); c.Text != want || streamed.String() != want {
				t.Errorf("job %d: %q (streamed %q), want %q", i, c.Text, streamed.String(), want)
			}
		})
	}
	wg.Wait()
	st := s.Stats()
	if st.Sampled < 32 || st.Active != 0 {
		t.Fatalf("stats %+v", st)
	}
	batched := 0
	for _, step := range f.stepLog() {
		seqs := map[int32]bool{}
		for _, tok := range step {
			seqs[tok.Seq] = true
		}
		if len(seqs) > 1 {
			batched++
		}
	}
	if batched == 0 {
		t.Fatal("no step held more than one sequence")
	}
}

func TestSchedulerCloseInFlight(t *testing.T) {
	f := newFakeModel(2, 8)
	f.delay = 100 * time.Microsecond
	s, err := NewScheduler(f, f, SchedulerConfig{Slots: 2, BatchSize: 8, ContextPerSlot: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 6)
	for i := range 6 {
		wg.Go(func() {
			_, err := s.Submit(context.Background(), Request{Prompt: []int32{int32(i)}})
			errs <- err
		})
	}
	waitFor(t, "rows running and queued", func() bool { st := s.Stats(); return st.Active == 2 && st.Queued == 4 })
	s.Close()
	wg.Wait()
	close(errs)
	for err := range errs {
		if !errors.Is(err, ErrClosed) {
			t.Fatalf("in flight at Close: %v", err)
		}
	}
	select {
	case <-s.done:
	default:
		t.Fatal("loop goroutine still running after Close")
	}
	if _, err := s.Submit(context.Background(), Request{Prompt: []int32{1}}); !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
	s.Close()
}
