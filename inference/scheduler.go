package inference

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// BatchToken is one entry of a decode step: a token at a position of a
// sequence, and whether the step must return logits for it.
type BatchToken struct {
	Token  int32
	Pos    int32
	Seq    int32
	Logits bool
}

// Decoder is the model context a Scheduler drives: one llama.cpp context,
// or a fake in tests. Only the scheduler's own goroutine calls it.
type Decoder interface {
	// Decode runs the model over one batch. Within a sequence, positions
	// are consecutive and follow what that sequence holds already. An
	// error wrapping ErrKVFull means the cache had no room.
	Decode(batch []BatchToken) error
	// Logits returns the logits for batch entry i of the last successful
	// Decode, which must have had Logits set. The slice is valid until the
	// next Decode.
	Logits(i int) []float32
	// RemoveSeq drops the positions of seq from `from` on; from 0 empties
	// the sequence.
	RemoveSeq(seq, from int32) error
}

// Vocab turns tokens into text for a Scheduler.
type Vocab interface {
	// NVocab is the number of tokens; valid ids are [0, NVocab).
	NVocab() int
	// Piece is the text (bytes, possibly part of a UTF-8 character) a
	// token adds to the output.
	Piece(tok int32) string
	// IsEOG reports whether tok ends generation.
	IsEOG(tok int32) bool
}

// SchedulerConfig sizes a Scheduler. It must match the context the
// Decoder wraps: Slots sequences (n_seq_max), BatchSize tokens per Decode
// (n_batch), and Slots*ContextPerSlot cells of KV cache.
type SchedulerConfig struct {
	// Slots is how many requests decode together; at least 1.
	Slots int
	// BatchSize is the most tokens one Decode holds; it is raised to Slots
	// when smaller, so every decoding row fits each step.
	BatchSize int
	// ContextPerSlot is the most positions (prompt plus output) one row
	// may use.
	ContextPerSlot int
	// Logger receives problems that fail no request; nil discards them.
	Logger *slog.Logger
}

// SchedulerStats are counters of a Scheduler's work since it started.
type SchedulerStats struct {
	Steps    uint64 // Decode calls
	Tokens   uint64 // tokens decoded (prompt and output)
	Sampled  uint64 // tokens sampled
	Failures uint64 // Decode calls that failed
	Active   int    // rows holding a slot; a finished request's slot is free before Submit returns
	Queued   int    // requests waiting for a slot, as of the last step
}

// Scheduler runs continuous batching over one Decoder. Requests take a free
// slot (a sequence id), prefill their prompt in pieces that share each step
// with the other rows' next tokens, and decode together, one Decode per
// step, each token with its own sequence and position, without padding. A
// row that finishes, is cancelled or fails frees its slot at once; its
// failure reaches only its own caller. Interactive requests get free slots
// and prefill budget before Background ones; among equals, first come is
// first served.
//
// All methods are safe for concurrent use. One goroutine, started by
// NewScheduler and stopped by Close, owns the Decoder.
type Scheduler struct {
	dec    Decoder
	vocab  Vocab
	nVocab int
	cfg    SchedulerConfig
	log    *slog.Logger

	mu       sync.Mutex
	incoming []*row
	closed   bool
	order    uint64

	wake chan struct{}
	done chan struct{}

	// Owned by the loop goroutine.
	queue      []*row
	slots      []*row
	batch      []BatchToken
	outs       []logitRow
	rows       []*row // rows in the current batch
	prefill    []*row // rows of the current batch still reading their prompt
	suspects   []*row // rows to decode alone after a failed shared step
	prefillCap int

	steps, tokens, sampled, failures atomic.Uint64
	active, queued                   atomic.Int64
}

// NewScheduler starts a scheduler over d. The scheduler owns d until Close
// returns; the caller must not use d meanwhile.
func NewScheduler(d Decoder, v Vocab, cfg SchedulerConfig) (*Scheduler, error) {
	if cfg.Slots < 1 {
		return nil, fmt.Errorf("new scheduler: %d slots, need at least 1", cfg.Slots)
	}
	if cfg.ContextPerSlot < 2 {
		return nil, fmt.Errorf("new scheduler: context per slot %d, need at least 2", cfg.ContextPerSlot)
	}
	cfg.BatchSize = max(cfg.BatchSize, cfg.Slots)
	s := &Scheduler{
		dec:        d,
		vocab:      v,
		nVocab:     v.NVocab(),
		cfg:        cfg,
		log:        cfg.Logger,
		wake:       make(chan struct{}, 1),
		done:       make(chan struct{}),
		slots:      make([]*row, cfg.Slots),
		prefillCap: cfg.BatchSize,
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	go s.run()
	return s, nil
}

// Config returns the scheduler's configuration after defaults.
func (s *Scheduler) Config() SchedulerConfig { return s.cfg }

// Stats returns the scheduler's counters.
func (s *Scheduler) Stats() SchedulerStats {
	return SchedulerStats{
		Steps:    s.steps.Load(),
		Tokens:   s.tokens.Load(),
		Sampled:  s.sampled.Load(),
		Failures: s.failures.Load(),
		Active:   int(s.active.Load()),
		Queued:   int(s.queued.Load()),
	}
}

// Submit runs one request to its end and returns what it produced. It
// blocks until the request finishes, fails, or is cancelled through ctx or
// OnToken; a cancelled request returns within one decode step with the
// text so far, FinishCancelled and the cause. After Close it returns
// ErrClosed.
func (s *Scheduler) Submit(ctx context.Context, req Request) (Completion, error) {
	if err := s.validate(req); err != nil {
		return Completion{PromptTokens: len(req.Prompt), Finish: FinishError}, fmt.Errorf("submit: %w", err)
	}
	rctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	r := &row{
		req:       req,
		ctx:       rctx,
		submitted: time.Now(),
		done:      make(chan struct{}),
		notify:    make(chan struct{}, 1),
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return Completion{PromptTokens: len(req.Prompt), Finish: FinishCancelled}, ErrClosed
	}
	s.order++
	r.order = s.order
	s.incoming = append(s.incoming, r)
	s.mu.Unlock()
	s.signal()
	defer context.AfterFunc(rctx, s.signal)()

	var cbErr error
	deliver := func() {
		for _, p := range r.takePieces() {
			if cbErr != nil {
				return
			}
			if err := req.OnToken(p); err != nil {
				cbErr = fmt.Errorf("token callback: %w", err)
				cancel(cbErr)
			}
		}
	}
	for {
		select {
		case <-r.notify:
			deliver()
		case <-r.done:
			deliver()
			if cbErr != nil {
				return r.result, cbErr
			}
			return r.result, r.err
		}
	}
}

func (s *Scheduler) validate(req Request) error {
	if len(req.Prompt) == 0 {
		return ErrEmptyPrompt
	}
	if len(req.Prompt) >= s.cfg.ContextPerSlot {
		return fmt.Errorf("%w: %d tokens, slot holds %d with one to generate", ErrPromptTooLong, len(req.Prompt), s.cfg.ContextPerSlot)
	}
	n := int32(s.nVocab)
	for i, t := range req.Prompt {
		if t < 0 || t >= n {
			return fmt.Errorf("%w: token %d at %d, vocabulary has %d", ErrInvalidToken, t, i, n)
		}
	}
	return nil
}

// Close stops the scheduler: queued and running requests fail with
// ErrClosed, and the loop goroutine has exited when Close returns. A
// decode step in progress finishes first. Close is idempotent.
func (s *Scheduler) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.signal()
	<-s.done
	return nil
}

func (s *Scheduler) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// row is one request's state while the scheduler holds it.
type row struct {
	req   Request
	ctx   context.Context
	order uint64

	seq      int32
	pos      int32 // positions held in the KV cache
	fed      int   // prompt tokens decoded
	decoding bool  // prompt done; next is the token to feed
	next     int32
	stepPos  int32 // pos before the current step, to roll back a failed one
	smp      *sampler
	out      *textOutput
	thinking bool // inside a thinking block: output is hidden
	trim     bool // a thinking block just closed: leading whitespace is hidden
	chunk    int  // prompt tokens in the current step
	tokens   []int32

	submitted, admitted, first time.Time

	mu     sync.Mutex
	pieces []string
	notify chan struct{}

	result Completion
	err    error
	done   chan struct{}
}

func (r *row) push(piece string) {
	if piece == "" || r.req.OnToken == nil {
		return
	}
	r.mu.Lock()
	r.pieces = append(r.pieces, piece)
	r.mu.Unlock()
	select {
	case r.notify <- struct{}{}:
	default:
	}
}

func (r *row) takePieces() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.pieces
	r.pieces = nil
	return p
}

// visible is the part of tok's piece that is output: none inside a
// thinking block, none of a delimiter (even one out of place), none of the
// whitespace that follows a block.
func (r *row) visible(tok int32, piece string) string {
	th := r.req.Thinking
	switch {
	case th == nil:
		return piece
	case r.thinking:
		if tok == th.Close {
			r.thinking, r.trim = false, true
		}
		return ""
	case tok == th.Open:
		r.thinking = true
		return ""
	case tok == th.Close: // a block the prompt opened, or a stray delimiter
		r.trim = true
		return ""
	case r.trim:
		piece = strings.TrimLeft(piece, " \t\r\n")
		r.trim = piece == ""
	}
	return piece
}

// before reports whether r should be served before o.
func (r *row) before(o *row) bool {
	if r.req.Priority != o.req.Priority {
		return r.req.Priority > o.req.Priority
	}
	return r.order < o.order
}

func (s *Scheduler) run() {
	defer close(s.done)
	for {
		s.mu.Lock()
		s.queue = append(s.queue, s.incoming...)
		s.incoming = nil
		closed := s.closed
		s.mu.Unlock()
		if closed {
			s.shutdown()
			return
		}
		s.reap()
		active := s.admit()
		s.queued.Store(int64(len(s.queue)))
		if active == 0 {
			<-s.wake
			continue
		}
		s.step()
	}
}

// reap ends rows whose context is done, queued or running.
func (s *Scheduler) reap() {
	q := s.queue[:0]
	for _, r := range s.queue {
		if r.ctx.Err() != nil {
			s.finish(r, FinishCancelled, context.Cause(r.ctx))
			continue
		}
		q = append(q, r)
	}
	clear(s.queue[len(q):])
	s.queue = q
	for _, r := range s.slots {
		if r != nil && r.ctx.Err() != nil {
			s.finish(r, FinishCancelled, context.Cause(r.ctx))
		}
	}
}

// admit gives free slots to the best queued rows and returns how many
// slots are busy.
func (s *Scheduler) admit() int {
	busy := 0
	for seq := range s.slots {
		if s.slots[seq] != nil {
			busy++
			continue
		}
		best := -1
		for i, r := range s.queue {
			if best < 0 || r.before(s.queue[best]) {
				best = i
			}
		}
		if best < 0 {
			continue
		}
		r := s.queue[best]
		s.queue = append(s.queue[:best], s.queue[best+1:]...)
		r.seq = int32(seq)
		r.admitted = time.Now()
		r.smp = newSampler(r.req.Sampling, r.req.Prompt)
		r.out = newTextOutput(r.req.Stop)
		r.thinking = r.req.Thinking != nil && r.req.Thinking.Inside
		s.slots[seq] = r
		s.active.Add(1)
		busy++
	}
	return busy
}

// logitRow is a batch entry whose logits a row samples from.
type logitRow struct {
	r *row
	i int
}

// step builds and runs one Decode: every decoding row's next token, then
// prefill pieces of rows still reading their prompt, best first, within
// the batch budget. The batch lists its rows in sequence order: with one
// KV stream per sequence (not memd's default) llama.cpp groups a step's
// sequences into one ubatch only while their ids are consecutive and
// increasing, so any other order splits it further than it must.
func (s *Scheduler) step() {
	s.batch, s.outs, s.rows, s.prefill = s.batch[:0], s.outs[:0], s.rows[:0], s.prefill[:0]
	candidates := s.slots
	if suspect := s.nextSuspect(); suspect != nil {
		candidates = []*row{suspect}
	}
	decoding := 0
	for _, r := range candidates {
		if r == nil {
			continue
		}
		r.stepPos, r.chunk = r.pos, 0
		if r.decoding {
			decoding++
			continue
		}
		s.prefill = append(s.prefill, r)
	}
	sortRows(s.prefill)
	budget := min(s.cfg.BatchSize-decoding, s.prefillCap)
	prefilled := 0
	for _, r := range s.prefill {
		if budget == 0 {
			break
		}
		r.chunk = min(len(r.req.Prompt)-r.fed, budget)
		budget -= r.chunk
		prefilled += r.chunk
	}
	for _, r := range candidates {
		switch {
		case r == nil || !r.decoding && r.chunk == 0:
			continue
		case r.decoding:
			s.outs = append(s.outs, logitRow{r, len(s.batch)})
			s.batch = append(s.batch, BatchToken{Token: r.next, Pos: r.pos, Seq: r.seq, Logits: true})
		default:
			for j := range r.chunk {
				k := r.fed + j
				last := k == len(r.req.Prompt)-1
				if last {
					s.outs = append(s.outs, logitRow{r, len(s.batch)})
				}
				s.batch = append(s.batch, BatchToken{Token: r.req.Prompt[k], Pos: r.pos + int32(j), Seq: r.seq, Logits: last})
			}
		}
		s.rows = append(s.rows, r)
	}

	err := s.dec.Decode(s.batch)
	s.steps.Add(1)
	if err != nil {
		s.failures.Add(1)
		s.decodeFailed(err, prefilled)
		return
	}
	s.tokens.Add(uint64(len(s.batch)))
	s.prefillCap = min(s.cfg.BatchSize, 2*s.prefillCap)
	for _, r := range s.rows {
		if r.decoding {
			r.pos++
			continue
		}
		r.fed += r.chunk
		r.pos += int32(r.chunk)
	}
	now := time.Now()
	for _, o := range s.outs {
		logits := s.dec.Logits(o.i)
		if len(logits) != s.nVocab {
			s.finish(o.r, FinishError, fmt.Errorf("decode step: %d logits for batch entry %d, want %d", len(logits), o.i, s.nVocab))
			continue
		}
		s.sampled.Add(1)
		s.accept(o.r, logits, now)
	}
}

func sortRows(rows []*row) {
	for i := 1; i < len(rows); i++ {
		for j := i; j > 0 && rows[j].before(rows[j-1]); j-- {
			rows[j], rows[j-1] = rows[j-1], rows[j]
		}
	}
}

// accept samples a row's next token from its logits and decides whether
// the row goes on.
func (s *Scheduler) accept(r *row, logits []float32, now time.Time) {
	tok := r.smp.sample(logits)
	if r.first.IsZero() {
		r.first = now
	}
	r.decoding = true
	if s.vocab.IsEOG(tok) {
		s.finish(r, FinishEOG, nil)
		return
	}
	r.smp.accept(tok)
	r.tokens = append(r.tokens, tok)
	release, stopped := r.out.add(r.visible(tok, s.vocab.Piece(tok)))
	r.push(release)
	switch {
	case stopped:
		s.finish(r, FinishStop, nil)
	case r.req.MaxTokens > 0 && len(r.tokens) >= r.req.MaxTokens,
		int(r.pos) >= s.cfg.ContextPerSlot:
		s.finish(r, FinishLength, nil)
	default:
		r.next = tok
	}
}

// decodeFailed rolls the batch's rows back to where they were before the
// step and decides who pays. With no room in the cache, the next steps
// prefill less or, when only one token was being prefilled, the least
// urgent row fails. Any other error fails the row alone when it was alone
// in the step; otherwise the rows are retried one per step, so only the
// rows that fail by themselves fail.
func (s *Scheduler) decodeFailed(err error, prefilled int) {
	for _, r := range s.rows {
		if rerr := s.dec.RemoveSeq(r.seq, r.stepPos); rerr != nil {
			s.log.Warn("roll back failed decode step", "seq", r.seq, "err", rerr)
		}
	}
	if errors.Is(err, ErrKVFull) {
		if prefilled > 1 {
			s.prefillCap = max(1, prefilled/2)
			return
		}
		var victim *row
		for _, r := range s.rows {
			if victim == nil || victim.before(r) {
				victim = r
			}
		}
		s.finish(victim, FinishError, fmt.Errorf("decode step: %w", err))
		return
	}
	if len(s.rows) == 1 {
		s.finish(s.rows[0], FinishError, fmt.Errorf("decode step: %w", err))
		return
	}
	// Find the culprit: the next steps decode these rows one at a time,
	// most urgent first (s.rows is in sequence order).
	first := len(s.suspects)
	s.suspects = append(s.suspects, s.rows...)
	sortRows(s.suspects[first:])
}

// nextSuspect returns the next row still running of those whose shared
// step failed, to be decoded alone.
func (s *Scheduler) nextSuspect() *row {
	for len(s.suspects) > 0 {
		r := s.suspects[0]
		s.suspects[0] = nil
		s.suspects = s.suspects[1:]
		if s.slots[r.seq] == r {
			return r
		}
	}
	return nil
}

// finish ends a row: its result is fixed, its slot (if any) is emptied in
// the cache and given back, and its caller is woken.
func (s *Scheduler) finish(r *row, reason FinishReason, err error) {
	if r.out == nil {
		r.out = newTextOutput(nil)
	}
	rest := r.out.flush()
	if reason != FinishCancelled && reason != FinishError {
		r.push(rest)
	}
	if s.slots[r.seq] == r {
		if rerr := s.dec.RemoveSeq(r.seq, 0); rerr != nil {
			s.log.Warn("free slot", "seq", r.seq, "err", rerr)
		}
		s.slots[r.seq] = nil
		s.active.Add(-1)
	}
	end := time.Now()
	t := Timings{}
	if !r.admitted.IsZero() {
		t.Queue = r.admitted.Sub(r.submitted)
		if r.first.IsZero() {
			t.Prefill = end.Sub(r.admitted)
		} else {
			t.Prefill = r.first.Sub(r.admitted)
			t.Decode = end.Sub(r.first)
		}
	} else {
		t.Queue = end.Sub(r.submitted)
	}
	r.result = Completion{
		Text:         string(r.out.text),
		Tokens:       r.tokens,
		PromptTokens: len(r.req.Prompt),
		Generated:    len(r.tokens),
		Finish:       reason,
		Timings:      t,
	}
	r.err = err
	close(r.done)
}

// shutdown fails every request the scheduler still holds.
func (s *Scheduler) shutdown() {
	for _, r := range s.slots {
		if r != nil {
			s.finish(r, FinishCancelled, ErrClosed)
		}
	}
	for _, r := range s.queue {
		s.finish(r, FinishCancelled, ErrClosed)
	}
	s.queue = nil
	s.mu.Lock()
	late := s.incoming
	s.incoming = nil
	s.mu.Unlock()
	for _, r := range late {
		s.finish(r, FinishCancelled, ErrClosed)
	}
}
