package parse

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// parseYAML reads the common subset of YAML that front matter uses:
// "key: value", quoted strings, flow lists "[a, b]", block lists ("- a")
// and nested mappings by indentation, "|" and ">" block scalars. It is a
// lenient reader, not a YAML implementation: a line it cannot read is
// skipped, and it never fails. Keeping it here keeps a YAML library (and
// its errors on broken front matter) out of the indexing path.
func parseYAML(lines []string) map[string]any {
	y := yamlReader{lines: lines}
	m, _ := y.mapping(0, 0)
	return m
}

type yamlReader struct{ lines []string }

// next returns the first line at or after i that carries content.
func (y *yamlReader) next(i int) int {
	for i < len(y.lines) {
		t := strings.TrimSpace(y.lines[i])
		if t != "" && t[0] != '#' {
			return i
		}
		i++
	}
	return i
}

// mapping reads keys indented exactly ind from line i; it stops at a line
// indented less, and returns the line after what it read.
func (y *yamlReader) mapping(i, ind int) (map[string]any, int) {
	m := map[string]any{}
	for i = y.next(i); i < len(y.lines); i = y.next(i) {
		lind, rest := indentOf(y.lines[i])
		if lind < ind {
			break
		}
		if lind > ind { // stray deeper line: skip it
			i++
			continue
		}
		key, val, ok := splitKey(rest)
		if !ok {
			i++
			continue
		}
		var v any
		v, i = y.value(val, i+1, ind)
		m[key] = v
	}
	return m, i
}

// value reads the value of a key whose inline part is val, with the lines
// below (from line i) that belong to it.
func (y *yamlReader) value(val string, i, ind int) (any, int) {
	val = stripComment(val)
	switch {
	case val == "|" || val == "|-" || val == "|+" || val == ">" || val == ">-" || val == ">+":
		return y.blockScalar(i, ind, val[0] == '>')
	case val != "":
		return scalar(val), i
	}
	j := y.next(i)
	if j >= len(y.lines) {
		return nil, j
	}
	lind, rest := indentOf(y.lines[j])
	switch {
	case isSeqItem(rest) && lind >= ind: // YAML allows "key:\n- a" unindented
		return y.sequence(j, lind)
	case lind > ind:
		return y.mapping(j, lind)
	}
	return nil, i
}

func (y *yamlReader) sequence(i, ind int) ([]any, int) {
	var s []any
	for i = y.next(i); i < len(y.lines); i = y.next(i) {
		lind, rest := indentOf(y.lines[i])
		if lind != ind || !isSeqItem(rest) {
			break
		}
		item := strings.TrimSpace(rest[1:])
		if key, val, ok := splitKey(item); ok && !strings.HasPrefix(item, "\"") && !strings.HasPrefix(item, "'") {
			// "- key: v" starts a mapping whose further keys align with key.
			var v any
			v, i = y.value(val, i+1, lind+2)
			m := map[string]any{key: v}
			more, next := y.mapping(i, lind+2)
			for k, v := range more {
				m[k] = v
			}
			s = append(s, m)
			i = next
			continue
		}
		s = append(s, scalar(stripComment(item)))
		i++
	}
	return s, i
}

func (y *yamlReader) blockScalar(i, ind int, folded bool) (any, int) {
	var parts []string
	j := i
	for ; j < len(y.lines); j++ {
		l := y.lines[j]
		if isBlank(l) {
			parts = append(parts, "")
			continue
		}
		lind, _ := indentOf(l)
		if lind <= ind {
			break
		}
		parts = append(parts, strings.TrimLeft(l, " \t"))
	}
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	sep := "\n"
	if folded {
		sep = " "
	}
	return strings.Join(parts, sep), j
}

func isSeqItem(rest string) bool {
	return rest == "-" || strings.HasPrefix(rest, "- ") || strings.HasPrefix(rest, "-\t")
}

// splitKey splits "key: value"; the key may be quoted.
func splitKey(s string) (key, val string, ok bool) {
	if s == "" || s[0] == '-' && isSeqItem(s) {
		return "", "", false
	}
	if s[0] == '"' || s[0] == '\'' {
		if j := strings.IndexByte(s[1:], s[0]); j >= 0 {
			key, rest := s[1:1+j], s[2+j:]
			if r, ok := strings.CutPrefix(strings.TrimLeft(rest, " \t"), ":"); ok {
				return key, strings.TrimSpace(r), true
			}
		}
		return "", "", false
	}
	for i := 0; i < len(s); i++ {
		if s[i] == ':' && (i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\t') {
			key = strings.TrimSpace(s[:i])
			return key, strings.TrimSpace(s[i+1:]), key != ""
		}
	}
	return "", "", false
}

// stripComment drops a " # comment" outside quotes.
func stripComment(s string) string {
	var quote byte
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			if i == 0 || s[i-1] == ' ' || s[i-1] == '[' || s[i-1] == ',' {
				quote = c
			}
		case c == '#' && i > 0 && (s[i-1] == ' ' || s[i-1] == '\t'):
			return strings.TrimSpace(s[:i])
		}
	}
	return strings.TrimSpace(s)
}

// scalar reads an inline value: quoted string, flow list, or a plain
// scalar typed as YAML 1.2 core would (null, bool, int, float, string).
func scalar(s string) any {
	if s == "" {
		return nil
	}
	switch s[0] {
	case '"':
		if len(s) >= 2 && s[len(s)-1] == '"' {
			if u, err := strconv.Unquote(s); err == nil {
				return u
			}
			return s[1 : len(s)-1]
		}
	case '\'':
		if len(s) >= 2 && s[len(s)-1] == '\'' {
			return strings.ReplaceAll(s[1:len(s)-1], "''", "'")
		}
	case '[':
		if s[len(s)-1] == ']' {
			return flowList(s[1 : len(s)-1])
		}
	}
	switch s {
	case "~", "null", "Null", "NULL":
		return nil
	case "true", "True", "TRUE":
		return true
	case "false", "False", "FALSE":
		return false
	}
	// Only these can start a number: the check spares most strings a failed
	// parse, which allocates its error.
	if c := s[0]; c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' {
		if i, err := strconv.ParseInt(s, 10, 0); err == nil {
			return int(i)
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return f
		}
	}
	return s
}

// flowList splits "a, 'b, c', [d]" at top-level commas.
func flowList(s string) []any {
	out := []any{}
	depth := 0
	var quote byte
	start := 0
	flush := func(end int) {
		if item := strings.TrimSpace(s[start:end]); item != "" {
			out = append(out, scalar(item))
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '[' || c == '{':
			depth++
		case c == ']' || c == '}':
			depth--
		case c == ',' && depth == 0:
			flush(i)
			start = i + 1
		}
	}
	flush(len(s))
	return out
}

// scalarString renders a scalar front matter value as text.
func scalarString(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	default:
		return fmt.Sprint(v)
	}
}

// TextFields are the text of a note's front matter beyond its title and
// tags, by what it says about the note; the pipeline indexes each with its
// own weight.
type TextFields struct {
	// Aliases are the note's other names: aliases or alias (Obsidian).
	Aliases []string
	// Description is what the note is about, in a sentence or two: desc
	// (Dendron), description (Hugo, Jekyll) or summary, the first set.
	Description string
	// Other are the string values of the remaining keys, and strings in
	// their lists, in key order.
	Other []string
}

// machineKeys name front matter values that are for programs, not
// people: ids, dates, layout and publishing switches.
var machineKeys = map[string]bool{
	"id": true, "uid": true, "created": true, "updated": true, "date": true, "modified": true,
	"lastmod": true, "permalink": true, "slug": true, "layout": true, "template": true, "stub": true,
	"nav_order": true, "nav_exclude": true, "published": true, "draft": true, "weight": true,
	"cssclass": true, "cssclasses": true, "documentid": true, "revisionid": true, "version": true,
}

// FrontMatterText reads a note's TextFields from its front matter (title
// and tags are the Note's own fields). A value that is a link (holding
// "://") is not text.
func FrontMatterText(fm map[string]any) TextFields {
	var f TextFields
	keys := make([]string, 0, len(fm))
	for k := range fm {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		strs := textValues(fm[k])
		switch lk := strings.ToLower(k); {
		case lk == "title" || lk == "tags" || lk == "tag" || machineKeys[lk]:
		case lk == "aliases" || lk == "alias":
			f.Aliases = append(f.Aliases, strs...)
		case lk == "desc" || lk == "description" || lk == "summary":
			if f.Description == "" && len(strs) > 0 {
				f.Description = strings.Join(strs, " ")
			}
		default:
			f.Other = append(f.Other, strs...)
		}
	}
	return f
}

// textValues is v's text: a string, or the strings of a list.
func textValues(v any) []string {
	var out []string
	add := func(x any) {
		if s, ok := x.(string); ok && strings.TrimSpace(s) != "" && !strings.Contains(s, "://") {
			out = append(out, strings.TrimSpace(s))
		}
	}
	if list, ok := v.([]any); ok {
		for _, x := range list {
			add(x)
		}
		return out
	}
	add(v)
	return out
}
