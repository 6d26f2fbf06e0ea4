package llama

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// ggml_log_level values.
const (
	logNone  = 0
	logDebug = 1
	logInfo  = 2
	logWarn  = 3
	logError = 4
	logCont  = 5
)

// logState routes llama.cpp's and ggml's log lines to a slog.Logger. The C
// side sends pieces (level CONT continues the previous one); a line is
// logged when its newline arrives. Calls may come from any thread.
var logState struct {
	once   sync.Once
	cb     uintptr
	mu     sync.Mutex
	logger *slog.Logger // nil: warn and error to slog.Default, the rest dropped
	level  int32
	line   strings.Builder
	errs   []string // error lines since lastError last ran, at most maxErrs
}

// SetLogger routes llama.cpp's log to logger: its debug, info, warn and error
// lines become slog records of those levels (the logger's handler filters).
// A nil logger restores the default: warnings and errors to slog.Default,
// the rest discarded. It applies to every Library (there is one log).
func (l *Library) SetLogger(logger *slog.Logger) {
	logState.mu.Lock()
	logState.logger = logger
	logState.mu.Unlock()
}

func (l *Library) installLogger() {
	logState.once.Do(func() {
		logState.cb = purego.NewCallback(func(level int32, text *byte, _ uintptr) {
			logPiece(level, goString(text))
		})
	})
	l.fn.logSet(logState.cb, 0)
}

func logPiece(level int32, text string) {
	s := &logState
	s.mu.Lock()
	defer s.mu.Unlock()
	if level != logCont {
		s.level = level
	}
	for {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			s.line.WriteString(text)
			return
		}
		s.line.WriteString(text[:i])
		emit(s.level, s.line.String())
		s.line.Reset()
		text = text[i+1:]
	}
}

func emit(level int32, msg string) {
	if msg == "" {
		return
	}
	if level == logError && len(logState.errs) < maxErrs {
		logState.errs = append(logState.errs, msg)
	}
	lg := logState.logger
	var sl slog.Level
	switch level {
	case logDebug:
		sl = slog.LevelDebug
	case logInfo, logNone:
		sl = slog.LevelInfo
	case logWarn:
		sl = slog.LevelWarn
		if byDesign(msg) {
			sl = slog.LevelDebug
		}
	default:
		sl = slog.LevelError
	}
	if lg == nil {
		if sl < slog.LevelWarn {
			return
		}
		lg = slog.Default()
	}
	lg.Log(context.Background(), sl, msg, "source", "llama.cpp")
}

const maxErrs = 4

// designWarnings are llama.cpp warnings about choices memd makes on
// purpose, logged at debug so that a user's log shows only real trouble:
// a generator's unified KV cache spans every slot, so each sequence may
// address more than the training context (the scheduler caps each request
// at it), and embedders get mean pooling where the model names none.
var designWarnings = []string{
	"> n_ctx_train",
	"model default pooling_type is [-1]",
}

func byDesign(msg string) bool {
	for _, w := range designWarnings {
		if strings.Contains(msg, w) {
			return true
		}
	}
	return false
}

// lastError returns and clears the error lines llama.cpp logged since the
// previous call, to explain a failed call.
func lastError() string {
	logState.mu.Lock()
	defer logState.mu.Unlock()
	e := strings.Join(logState.errs, "; ")
	logState.errs = nil
	return e
}

func goString(p *byte) string {
	if p == nil {
		return ""
	}
	n := 0
	for *(*byte)(unsafe.Add(unsafe.Pointer(p), n)) != 0 {
		n++
	}
	return string(unsafe.Slice(p, n))
}

func cString(s string) *byte {
	b := make([]byte, len(s)+1)
	copy(b, s)
	return &b[0]
}
