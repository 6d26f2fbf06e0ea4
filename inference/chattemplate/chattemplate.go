package chattemplate

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ardanlabs/jinja"
)

// ErrTemplate wraps every error of a template: one that does not compile,
// or one that refuses a conversation (raise_exception, a bad expression).
var ErrTemplate = errors.New("chat template")

// Message is one turn of a conversation.
type Message struct {
	Role    string // "system", "user" or "assistant"
	Content string
}

// Options are the variables a template reads besides the messages.
type Options struct {
	// AddGenerationPrompt ends the text with an open assistant turn.
	AddGenerationPrompt bool
	// EnableThinking lets a reasoning model think before it answers
	// (Gemma 4's and Qwen 3's enable_thinking). memd's stages leave it off:
	// they want the answer alone.
	EnableThinking bool
	// BOS and EOS are the texts of the model's begin- and end-of-sequence
	// tokens (bos_token, eos_token).
	BOS, EOS string
	// Now is the time strftime_now formats (some templates print today's
	// date); the zero value means time.Now().
	Now time.Time
}

// Template is a compiled chat template; it is safe for concurrent use.
type Template struct {
	compiled *jinja.Template
}

// Compile parses a template's Jinja source.
func Compile(source string) (*Template, error) {
	t, err := jinja.Compile(source)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrTemplate, err)
	}
	return &Template{compiled: t}, nil
}

// Render turns msgs into prompt text.
func (t *Template) Render(msgs []Message, o Options) (string, error) {
	out, err := t.compiled.RenderValues(variables(msgs, o))
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrTemplate, err)
	}
	return out, nil
}

// variables are the template's inputs. Each message is a dict with role
// before content, the order Python's dicts keep, for templates that
// iterate a message's items.
func variables(msgs []Message, o Options) map[string]jinja.Value {
	list := make([]jinja.Value, len(msgs))
	for i, m := range msgs {
		d := jinja.NewDict()
		d.AsDict().Set("role", jinja.NewString(m.Role))
		d.AsDict().Set("content", jinja.NewString(m.Content))
		list[i] = d
	}
	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	return map[string]jinja.Value{
		"messages":              jinja.NewList(list),
		"add_generation_prompt": jinja.NewBool(o.AddGenerationPrompt),
		"enable_thinking":       jinja.NewBool(o.EnableThinking),
		"bos_token":             jinja.NewString(o.BOS),
		"eos_token":             jinja.NewString(o.EOS),
		"strftime_now": jinja.NewCallable("strftime_now", func(args []jinja.Value, _ map[string]jinja.Value) (jinja.Value, error) {
			if len(args) != 1 || !args[0].IsString() {
				return jinja.Undefined(), errors.New("strftime_now takes one format string")
			}
			return jinja.NewString(strftime(now, args[0].AsString())), nil
		}),
	}
}

// strftime formats t with the C directives chat templates use; an unknown
// directive is kept as written.
func strftime(t time.Time, format string) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' || i+1 == len(format) {
			b.WriteByte(c)
			continue
		}
		i++
		pad := true
		if format[i] == '-' && i+1 < len(format) { // glibc's "no padding" flag
			pad = false
			i++
		}
		b.WriteString(directive(t, format[i], pad))
	}
	return b.String()
}

func directive(t time.Time, d byte, pad bool) string {
	num := func(n int) string {
		if pad {
			return fmt.Sprintf("%02d", n)
		}
		return fmt.Sprint(n)
	}
	switch d {
	case 'Y':
		return fmt.Sprint(t.Year())
	case 'y':
		return fmt.Sprintf("%02d", t.Year()%100)
	case 'm':
		return num(int(t.Month()))
	case 'd':
		return num(t.Day())
	case 'e':
		return fmt.Sprintf("%2d", t.Day())
	case 'H':
		return num(t.Hour())
	case 'M':
		return num(t.Minute())
	case 'S':
		return num(t.Second())
	case 'j':
		return fmt.Sprintf("%03d", t.YearDay())
	case 'b', 'h':
		return t.Month().String()[:3]
	case 'B':
		return t.Month().String()
	case 'a':
		return t.Weekday().String()[:3]
	case 'A':
		return t.Weekday().String()
	case 'p':
		return t.Format("PM")
	case '%':
		return "%"
	}
	return "%" + string(d)
}
