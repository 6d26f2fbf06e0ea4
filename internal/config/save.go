package config

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Save writes c to the config file at path, for `memctl model set` and
// `unset`. Pass it a Config loaded with Load(path, nil), not one with the
// environment and flags applied, or they become part of the file.
//
// An existing file is edited in place: a changed key's value is replaced
// on its line (a comment after it stays), an unset key's line is removed, a
// new key goes after the last key of its table (or into a new table at the
// end); every other line, comments included, is kept as it was. Where a
// key to change is written in a form that cannot be edited on its line (a
// value over several lines, an inline table), Save writes a clean file
// instead and the file's comments are lost. A file that does not parse is
// left alone and is an error. The write is atomic (a temporary file renamed
// over the old one; a symbolic link is followed and its target replaced).
func Save(path string, c Config) error {
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	}
	mode := os.FileMode(0o644)
	old, err := os.ReadFile(path)
	var text string
	switch {
	case errors.Is(err, os.ErrNotExist):
		text = render(c)
	case err != nil:
		return fmt.Errorf("read config: %w", err)
	default:
		if st, err := os.Stat(path); err == nil {
			mode = st.Mode().Perm()
		}
		if text, err = edit(path, string(old), c); err != nil {
			return err
		}
	}
	return writeAtomic(path, []byte(text), mode)
}

// edit is the text of the file at path changed to hold c.
func edit(path, text string, c Config) (string, error) {
	var prev Config
	if err := prev.decode(path, text); err != nil {
		return "", fmt.Errorf("%w (Save left the file as it was: fix or remove it)", err)
	}
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n" // so that an insert at the end starts a line
	}
	e := &editor{idx: indexDoc(text)}
	for _, s := range settings {
		if s.kind == kindAdapters {
			continue
		}
		want, have := s.render(&c), s.render(&prev)
		if want != have && !e.set(s.Name, want) {
			return render(c), nil
		}
	}
	both := maps.Clone(prev.Adapters)
	if both == nil {
		both = map[string]string{}
	}
	maps.Copy(both, c.Adapters)
	for _, n := range slices.Sorted(maps.Keys(both)) {
		want, have := "", ""
		if p := c.Adapters[n]; p != "" {
			want = quote(p)
		}
		if p := prev.Adapters[n]; p != "" {
			have = quote(p)
		}
		if want != have && !e.set("adapters."+quoteKey(n), want) {
			return render(c), nil
		}
	}
	return e.apply(), nil
}

// editor collects edits of a document and applies them together.
type editor struct {
	idx     *docIndex
	edits   []textEdit
	newTabl map[string][]string // lines for tables the file lacks
	order   []string
}

type textEdit struct {
	start, end int
	text       string
	seq        int
}

// set makes the key name hold value ("" removes it); false means the key
// cannot be edited where it is and the file must be written afresh.
func (e *editor) set(name, value string) bool {
	idx := e.idx
	if sp, ok := idx.keys[unquoteName(name)]; ok {
		switch {
		case sp.multiLine || sp.inlineTabl:
			return false
		case value == "":
			e.add(sp.line, sp.lineEnd, "")
		default:
			e.add(sp.valStart, sp.valEnd, value)
		}
		return true
	}
	table, key := "", name
	if i := strings.IndexByte(name, '.'); i >= 0 {
		table, key = name[:i], name[i+1:]
	}
	if _, inline := idx.keys[table]; table != "" && inline {
		return false // the table is written as table = { ... }
	}
	if value == "" {
		return true
	}
	line := key + " = " + value + "\n"
	switch _, hasHeader := idx.headers[table]; {
	case table == "":
		if at, ok := idx.last[""]; ok {
			e.add(at, at, line)
		} else if idx.firstHeader >= 0 {
			e.add(idx.firstHeader, idx.firstHeader, line+"\n")
		} else {
			e.add(len(idx.text), len(idx.text), line)
		}
	case hasHeader:
		e.add(idx.last[table], idx.last[table], line)
	default:
		if at, ok := idx.last[table]; ok { // table.key lines at the top level
			e.add(at, at, table+"."+line)
			return true
		}
		if e.newTabl == nil {
			e.newTabl = map[string][]string{}
		}
		if _, seen := e.newTabl[table]; !seen {
			e.order = append(e.order, table)
		}
		e.newTabl[table] = append(e.newTabl[table], line)
	}
	return true
}

func (e *editor) add(start, end int, text string) {
	e.edits = append(e.edits, textEdit{start, end, text, len(e.edits)})
}

func (e *editor) apply() string {
	text := e.idx.text
	for _, t := range e.order {
		e.add(len(text), len(text), "\n["+t+"]\n"+strings.Join(e.newTabl[t], ""))
	}
	// Back to front, so offsets stay valid; of two inserts at one offset,
	// the one added first ends up first.
	sort.SliceStable(e.edits, func(i, j int) bool {
		a, b := e.edits[i], e.edits[j]
		if a.start != b.start {
			return a.start > b.start
		}
		return a.seq > b.seq
	})
	for _, ed := range e.edits {
		text = text[:ed.start] + ed.text + text[ed.end:]
	}
	return text
}

// render is a clean file holding c.
func render(c Config) string {
	var b strings.Builder
	b.WriteString("# memd's configuration. Every key is also a flag (--threads) and an\n")
	b.WriteString("# environment variable (MEMD_THREADS); a flag wins over the environment,\n")
	b.WriteString("# which wins over this file. `memd --help` lists them all.\n")
	sections := map[string][]string{}
	for _, s := range settings {
		if s.kind == kindAdapters {
			for _, n := range slices.Sorted(maps.Keys(c.Adapters)) {
				if p := c.Adapters[n]; p != "" {
					sections["adapters"] = append(sections["adapters"], quoteKey(n)+" = "+quote(p)+"\n")
				}
			}
			continue
		}
		v := s.render(&c)
		if v == "" {
			continue
		}
		table, key := "", s.Name
		if i := strings.IndexByte(s.Name, '.'); i >= 0 {
			table, key = s.Name[:i], s.Name[i+1:]
		}
		sections[table] = append(sections[table], key+" = "+v+"\n")
	}
	if top := sections[""]; len(top) > 0 {
		b.WriteString("\n" + strings.Join(top, ""))
	}
	for _, t := range tables {
		if lines := sections[t]; len(lines) > 0 {
			b.WriteString("\n[" + t + "]\n" + strings.Join(lines, ""))
		}
	}
	return b.String()
}

// render is s's value in c as TOML, "" when it is not set.
func (s setting) render(c *Config) string {
	switch p := s.ptr(c).(type) {
	case *string:
		if *p != "" {
			return quote(*p)
		}
	case *int:
		if *p != 0 {
			return strconv.Itoa(*p)
		}
	case *int64:
		if *p != 0 {
			return strconv.FormatInt(*p, 10)
		}
	case *bool:
		if *p {
			return "true"
		}
	case *float64:
		if *p != 0 {
			f := strconv.FormatFloat(*p, 'g', -1, 64)
			if !strings.ContainsAny(f, ".eEn") {
				f += ".0"
			}
			return f
		}
	}
	return ""
}

// quote is s as a TOML string: a literal string when it can be one (paths
// read best without escapes), else a basic string.
func quote(s string) string {
	if !strings.ContainsAny(s, "'\n\r\t") && !hasControl(s) {
		return "'" + s + "'"
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&b, `\u%04X`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

func hasControl(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0
}

// quoteKey is name as a TOML key: bare when it can be.
func quoteKey(name string) string {
	for _, r := range name {
		if !(r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return quote(name)
		}
	}
	return name
}

// unquoteName is the index's form of a dotted name whose last part may be
// quoted by quoteKey.
func unquoteName(name string) string {
	i := strings.IndexByte(name, '.')
	if i < 0 {
		return name
	}
	parts, _ := parseKey(name[i+1:], 0, '=')
	return name[:i] + "." + strings.Join(parts, ".")
}

func writeAtomic(path string, data []byte, mode os.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("save config: %w", err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("save config: %w", err)
	}
	defer os.Remove(tmp.Name()) // fails harmlessly once renamed
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("save config %s: %w", path, err)
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return fmt.Errorf("save config %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("save config %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("save config %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("save config %s: %w", path, err)
	}
	return nil
}
