package llama

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
)

type captureHandler struct {
	mu      sync.Mutex
	records []slog.Record
}

func (h *captureHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *captureHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.records = append(h.records, r)
	return nil
}
func (h *captureHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *captureHandler) WithGroup(string) slog.Handler      { return h }

func TestSetLogger(t *testing.T) {
	l := openLib(t)
	h := &captureHandler{}
	l.SetLogger(slog.New(h))
	defer l.SetLogger(nil)
	m := loadModel(t, l, models(t).bigram)
	c := newContext(t, m, ContextParams{NCtx: 256})
	b := NewBatch(1, 1)
	defer b.Free()
	b.Add(int32(m.NVocab()), 0, 0, true)
	if err := c.Decode(b); err == nil || !strings.Contains(err.Error(), "invalid token") {
		t.Errorf("decode error %v does not carry llama.cpp's reason", err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	levels := map[slog.Level]int{}
	var sawInvalid bool
	for _, r := range h.records {
		levels[r.Level]++
		if r.Level == slog.LevelError && strings.Contains(r.Message, "invalid token") {
			sawInvalid = true
		}
		if strings.Contains(r.Message, "\n") {
			t.Errorf("record with a newline: %q", r.Message)
		}
	}
	if !sawInvalid || levels[slog.LevelInfo] == 0 {
		t.Errorf("levels %v, saw the invalid token error: %v", levels, sawInvalid)
	}
}

// Warnings about memd's own choices (see designWarnings) go to debug;
// other warnings stay warnings.
func TestDesignWarningsAreDebug(t *testing.T) {
	h := &captureHandler{}
	logState.mu.Lock()
	old := logState.logger
	logState.logger = slog.New(h)
	logState.mu.Unlock()
	defer func() { logState.mu.Lock(); logState.logger = old; logState.mu.Unlock() }()
	logPiece(logWarn, "llama_context: n_ctx_seq (16384) > n_ctx_train (2048) -- possible training context overflow\n")
	logPiece(logWarn, "llama_init_from_model: model default pooling_type is [-1], but [1] was specified\n")
	logPiece(logWarn, "llama_model_load: something else\n")
	want := []slog.Level{slog.LevelDebug, slog.LevelDebug, slog.LevelWarn}
	if len(h.records) != len(want) {
		t.Fatalf("%d records, want %d", len(h.records), len(want))
	}
	for i, r := range h.records {
		if r.Level != want[i] {
			t.Errorf("%q at %v, want %v", r.Message, r.Level, want[i])
		}
	}
}
