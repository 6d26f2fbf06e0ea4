package config

import (
	"sort"
	"strings"
)

// docIndex locates the keys of a TOML document in its text: the line of an
// unknown key for an error, and the spans Save edits so that the rest of the
// file, comments included, stays as the user wrote it. It is built only from
// text the TOML decoder has accepted, so it can be lenient.
type docIndex struct {
	text    string
	keys    map[string]span // full dotted name → the key's line and value
	headers map[string]int  // table name → offset of its [header] line
	// last maps a table ("" for the top level) to the end of the last line
	// that belongs to it: its header or one of its keys.
	last        map[string]int
	firstHeader int // offset of the first [header], -1 when none
	lineStarts  []int
}

// span is one key = value.
type span struct {
	line       int // offset where the key's line starts
	valStart   int // the value, as offsets into the text
	valEnd     int
	lineEnd    int  // offset just past the newline that ends the value's last line
	multiLine  bool // the value runs over more than one line
	topDotted  bool // a table's key written as table.key outside any [header]
	inlineTabl bool // the value is an inline table { ... }
}

func indexDoc(text string) *docIndex {
	d := &docIndex{text: text, keys: map[string]span{}, headers: map[string]int{}, last: map[string]int{}, firstHeader: -1}
	d.lineStarts = append(d.lineStarts, 0)
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			d.lineStarts = append(d.lineStarts, i+1)
		}
	}
	table := ""
	for pos := 0; pos < len(text); {
		lineStart := pos
		pos = skipSpace(text, pos)
		if pos >= len(text) {
			break
		}
		switch c := text[pos]; {
		case c == '\n' || c == '\r' || c == '#':
			pos = nextLine(text, pos)
		case c == '[':
			arr := strings.HasPrefix(text[pos:], "[[")
			start := pos + 1
			if arr {
				start++
			}
			parts, end := parseKey(text, start, ']')
			table = strings.Join(parts, ".")
			if arr {
				table = "[[" + table + "]]" // arrays of tables are never memd's
			}
			if _, seen := d.headers[table]; !seen {
				d.headers[table] = lineStart
			}
			if d.firstHeader < 0 {
				d.firstHeader = lineStart
			}
			pos = nextLine(text, end)
			d.last[table] = pos
		default:
			parts, eq := parseKey(text, pos, '=')
			if eq >= len(text) || text[eq] != '=' {
				pos = nextLine(text, pos)
				continue
			}
			vs := skipSpace(text, eq+1)
			ve := scanValue(text, vs, 0)
			s := span{line: lineStart, valStart: vs, valEnd: ve, lineEnd: nextLine(text, ve)}
			s.multiLine = strings.Contains(text[vs:ve], "\n")
			s.inlineTabl = vs < len(text) && text[vs] == '{'
			full := parts
			if table != "" {
				full = append(strings.Split(table, "."), parts...)
			}
			name := strings.Join(full, ".")
			s.topDotted = table == "" && len(parts) > 1
			if _, seen := d.keys[name]; !seen {
				d.keys[name] = s
			}
			owner := table
			if s.topDotted {
				owner = strings.Join(parts[:len(parts)-1], ".")
			}
			d.last[owner] = s.lineEnd
			pos = s.lineEnd
		}
	}
	return d
}

// lineOf is the 1-based line of the key name, or of the nearest enclosing
// key or table that the index knows; 0 when none.
func (d *docIndex) lineOf(name string) int {
	for n := name; n != ""; {
		if s, ok := d.keys[n]; ok {
			return d.lineNumber(s.line)
		}
		if off, ok := d.headers[n]; ok {
			return d.lineNumber(off)
		}
		i := strings.LastIndexByte(n, '.')
		if i < 0 {
			break
		}
		n = n[:i]
	}
	return 0
}

func (d *docIndex) lineNumber(off int) int {
	return sort.Search(len(d.lineStarts), func(i int) bool { return d.lineStarts[i] > off })
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// nextLine is the offset just past the newline at or after i.
func nextLine(s string, i int) int {
	if j := strings.IndexByte(s[min(i, len(s)):], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(s)
}

// parseKey reads a dotted key (bare, "basic" or 'literal' parts) from i up
// to stop ('=' for a key, ']' for a header) and returns the parts and the
// offset of stop.
func parseKey(s string, i int, stop byte) ([]string, int) {
	var parts []string
	var cur strings.Builder
	for i < len(s) && s[i] != stop && s[i] != '\n' {
		switch c := s[i]; c {
		case '"', '\'':
			end := scanValue(s, i, 0)
			part := s[i+1 : max(i+1, end-1)]
			if c == '"' {
				part = unescapeBasic(part)
			}
			cur.WriteString(part)
			i = end
		case '.':
			parts = append(parts, cur.String())
			cur.Reset()
			i++
		case ' ', '\t':
			i++
		default:
			cur.WriteByte(c)
			i++
		}
	}
	return append(parts, cur.String()), i
}

func unescapeBasic(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	r := strings.NewReplacer(`\"`, `"`, `\\`, `\`, `\t`, "\t", `\n`, "\n")
	return r.Replace(s)
}

// scanValue is the offset just past the TOML value that starts at i. depth
// is how many arrays or inline tables enclose it.
func scanValue(s string, i, depth int) int {
	if i >= len(s) {
		return i
	}
	switch {
	case strings.HasPrefix(s[i:], `"""`):
		for j := i + 3; j < len(s); j++ {
			if s[j] == '\\' {
				j++
			} else if strings.HasPrefix(s[j:], `"""`) {
				return j + 3 + extraQuotes(s[j+3:], '"')
			}
		}
		return len(s)
	case strings.HasPrefix(s[i:], `'''`):
		if j := strings.Index(s[i+3:], `'''`); j >= 0 {
			end := i + 3 + j + 3
			return end + extraQuotes(s[end:], '\'')
		}
		return len(s)
	case s[i] == '"':
		for j := i + 1; j < len(s) && s[j] != '\n'; j++ {
			if s[j] == '\\' {
				j++
			} else if s[j] == '"' {
				return j + 1
			}
		}
		return len(s)
	case s[i] == '\'':
		if j := strings.IndexByte(s[i+1:], '\''); j >= 0 {
			return i + 1 + j + 1
		}
		return len(s)
	case s[i] == '[' || s[i] == '{':
		closer := byte(']')
		if s[i] == '{' {
			closer = '}'
		}
		for j := i + 1; j < len(s); {
			switch s[j] {
			case closer:
				return j + 1
			case '#':
				j = nextLine(s, j)
			case '"', '\'', '[', '{':
				j = scanValue(s, j, depth+1)
			default:
				j++
			}
		}
		return len(s)
	}
	j := i
	for j < len(s) && s[j] != '\n' && s[j] != '#' && !(depth > 0 && strings.IndexByte(",]}", s[j]) >= 0) {
		j++
	}
	for j > i && (s[j-1] == ' ' || s[j-1] == '\t' || s[j-1] == '\r') {
		j--
	}
	return j
}

// extraQuotes counts the up to two quote characters TOML allows right after
// a multi-line string's closing delimiter, which belong to the string.
func extraQuotes(s string, q byte) int {
	n := 0
	for n < 2 && n < len(s) && s[n] == q {
		n++
	}
	return n
}
