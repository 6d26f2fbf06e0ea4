package parse

import "strings"

// fence is an open code fence: its character, length and info word.
type fence struct {
	char   byte
	n      int
	indent int // the content column of the fence's container, which bounds the closer's indent
	lang   string
}

// openFence reads rest (a line after its indent) as an opening ``` or ~~~
// fence. A backtick fence whose info contains a backtick is inline code.
func openFence(rest string) (fence, bool) {
	if len(rest) < 3 || (rest[0] != '`' && rest[0] != '~') {
		return fence{}, false
	}
	c := rest[0]
	n := 0
	for n < len(rest) && rest[n] == c {
		n++
	}
	if n < 3 {
		return fence{}, false
	}
	info := strings.TrimSpace(rest[n:])
	if c == '`' && strings.IndexByte(info, '`') >= 0 {
		return fence{}, false
	}
	lang, _, _ := strings.Cut(info, " ")
	lang = strings.Trim(strings.TrimSpace(lang), "{}.")
	return fence{char: c, n: n, lang: lang}, true
}

// closeFence returns the line that closes f, searching from line from, or
// the last non-blank line when the fence is never closed (it runs to the
// end of the file).
func closeFence(lines []string, from int, f fence) int {
	last := from - 1
	for j := from; j < len(lines); j++ {
		if f.closedBy(indentOf(lines[j])) {
			return j
		}
		if !isBlank(lines[j]) {
			last = j
		}
	}
	return last
}

// closedBy reports whether a line indented ind, with rest after its indent,
// closes f: at least f.n of f.char and nothing after them but white space,
// indented at most three columns past the content column of the container
// holding the fence (f.indent: 0 at the top level), as in CommonMark.
func (f fence) closedBy(ind int, rest string) bool {
	if ind > f.indent+3 {
		return false
	}
	n := 0
	for n < len(rest) && rest[n] == f.char {
		n++
	}
	return n >= f.n && isBlank(rest[n:])
}

// stripQuotes removes up to max quote markers ('>' and one space after
// it) from the start of l and returns how many it removed and the rest.
// A '>' indented four or more columns is content, not a marker.
func stripQuotes(l string, max int) (int, string) {
	depth := 0
	for depth < max {
		ind, rest := indentOf(l)
		if ind >= 4 || rest == "" || rest[0] != '>' {
			break
		}
		l = strings.TrimPrefix(rest[1:], " ")
		depth++
	}
	return depth, l
}

// atxHeading reads "# Title ##" into its level and title.
func atxHeading(rest string) (int, string, bool) {
	n := 0
	for n < len(rest) && rest[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || (n < len(rest) && rest[n] != ' ' && rest[n] != '\t') {
		return 0, "", false
	}
	title := strings.TrimSpace(rest[n:])
	// A closing run of #s is dropped when a space precedes it.
	if t := strings.TrimRight(title, "#"); t != title && (t == "" || t[len(t)-1] == ' ' || t[len(t)-1] == '\t') {
		title = strings.TrimSpace(t)
	}
	return n, cleanTitle(title), true
}

// cleanTitle drops code-span backticks, which would otherwise stick to the
// words of a heading path.
func cleanTitle(t string) string {
	if strings.IndexByte(t, '`') < 0 {
		return t
	}
	return strings.Join(strings.Fields(strings.ReplaceAll(t, "`", "")), " ")
}

// isThematicBreak: three or more of one of - * _, spaces allowed between.
func isThematicBreak(rest string) bool {
	var c byte
	n := 0
	for i := 0; i < len(rest); i++ {
		switch rest[i] {
		case ' ', '\t':
		case '-', '*', '_':
			if c != 0 && rest[i] != c {
				return false
			}
			c = rest[i]
			n++
		default:
			return false
		}
	}
	return n >= 3
}

// setextLevel returns 1 for a "===" underline, 2 for "---", else 0.
func setextLevel(rest string) int {
	t := strings.TrimRight(rest, " \t")
	if t == "" {
		return 0
	}
	if strings.Trim(t, "=") == "" {
		return 1
	}
	if strings.Trim(t, "-") == "" {
		return 2
	}
	return 0
}

// marker is a list item's marker.
type marker struct {
	ordered bool
	number  int
	empty   bool   // nothing follows the marker on its line
	content string // the line after the marker
}

// listMarker reads "- ", "* ", "+ ", "1. " or "1) " at the start of rest.
func listMarker(rest string) (marker, bool) {
	var m marker
	n := 0
	switch rest[0] {
	case '-', '*', '+':
		n = 1
	default:
		for n < len(rest) && n < 9 && '0' <= rest[n] && rest[n] <= '9' {
			m.number = m.number*10 + int(rest[n]-'0')
			n++
		}
		if n == 0 || n >= len(rest) || (rest[n] != '.' && rest[n] != ')') {
			return marker{}, false
		}
		m.ordered = true
		n++
	}
	if n < len(rest) && rest[n] != ' ' && rest[n] != '\t' {
		return marker{}, false
	}
	m.content = strings.TrimLeft(rest[n:], " \t")
	m.empty = m.content == ""
	return m, true
}

// HTML block kinds, after CommonMark: which line ends them.
const (
	htmlComment     = iota + 1 // ends at -->
	htmlRaw                    // <script>, <pre>, <style>, <textarea>: ends at their close tag
	htmlProcessing             // <? ends at ?>
	htmlDeclaration            // <!X ends at >
	htmlCDATA                  // ends at ]]>
	htmlBlockTag               // a known block tag: ends at a blank line
	htmlOtherTag               // any other complete tag alone: ends at a blank line
)

var htmlRawTags = []string{"script", "pre", "style", "textarea"}

var htmlBlockTags = map[string]bool{
	"address": true, "article": true, "aside": true, "base": true, "basefont": true,
	"blockquote": true, "body": true, "caption": true, "center": true, "col": true,
	"colgroup": true, "dd": true, "details": true, "dialog": true, "dir": true,
	"div": true, "dl": true, "dt": true, "fieldset": true, "figcaption": true,
	"figure": true, "footer": true, "form": true, "frame": true, "frameset": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true,
	"head": true, "header": true, "hr": true, "html": true, "iframe": true,
	"legend": true, "li": true, "link": true, "main": true, "menu": true,
	"menuitem": true, "nav": true, "noframes": true, "ol": true, "optgroup": true,
	"option": true, "p": true, "param": true, "search": true, "section": true,
	"summary": true, "table": true, "tbody": true, "td": true, "tfoot": true,
	"th": true, "thead": true, "title": true, "tr": true, "track": true, "ul": true,
}

// htmlStart reads the start of an HTML block. In a paragraph only the
// first six kinds count, so inline tags like <b> stay inline.
func htmlStart(rest string, inParagraph bool) (int, bool) {
	if len(rest) < 2 || rest[0] != '<' {
		return 0, false
	}
	switch {
	case strings.HasPrefix(rest, "<!--"):
		return htmlComment, true
	case strings.HasPrefix(rest, "<?"):
		return htmlProcessing, true
	case strings.HasPrefix(rest, "<![CDATA["):
		return htmlCDATA, true
	case rest[1] == '!' && len(rest) > 2 && isASCIILetter(rest[2]):
		return htmlDeclaration, true
	}
	s := rest[1:]
	closing := false
	if s[0] == '/' {
		closing, s = true, s[1:]
	}
	n := 0
	for n < len(s) && (isASCIILetter(s[n]) || n > 0 && (s[n] >= '0' && s[n] <= '9' || s[n] == '-')) {
		n++
	}
	if n == 0 {
		return 0, false
	}
	name := strings.ToLower(s[:n])
	after := s[n:]
	if after != "" && after[0] != ' ' && after[0] != '\t' && after[0] != '>' && !strings.HasPrefix(after, "/>") {
		return 0, false // "<https://x>" is an autolink, not a tag
	}
	for _, t := range htmlRawTags {
		if name == t && !closing {
			return htmlRaw, true
		}
		if name == t {
			return 0, false // "</pre>" alone opens no block
		}
	}
	if htmlBlockTags[name] {
		return htmlBlockTag, true
	}
	if inParagraph {
		return 0, false
	}
	if n := completeTag(rest); n > 0 && isBlank(rest[n:]) {
		return htmlOtherTag, true
	}
	return 0, false
}

// completeTag returns the length of the complete open or closing tag at
// the start of s, or 0: "<name attr='v' bare>" or "</name >", as
// CommonMark's seventh kind of HTML block needs it alone on its line.
func completeTag(s string) int {
	if len(s) < 3 || s[0] != '<' {
		return 0
	}
	i := 1
	closing := s[i] == '/'
	if closing {
		i++
	}
	start := i
	for i < len(s) && (isASCIILetter(s[i]) || i > start && (s[i] >= '0' && s[i] <= '9' || s[i] == '-')) {
		i++
	}
	if i == start {
		return 0
	}
	for !closing {
		j := skipSpace(s, i)
		if j == i || j == len(s) || !isAttrNameStart(s[j]) {
			i = j
			break
		}
		i = j + 1
		for i < len(s) && (isAttrNameStart(s[i]) || s[i] >= '0' && s[i] <= '9' || s[i] == '.' || s[i] == '-') {
			i++
		}
		if k := skipSpace(s, i); k < len(s) && s[k] == '=' {
			n := attrValue(s[skipSpace(s, k+1):])
			if n == 0 {
				return 0
			}
			i = skipSpace(s, k+1) + n
		}
	}
	i = skipSpace(s, i)
	if !closing && strings.HasPrefix(s[i:], "/>") {
		return i + 2
	}
	if i < len(s) && s[i] == '>' {
		return i + 1
	}
	return 0
}

// attrValue returns the length of the attribute value at the start of s:
// quoted, or a run without spaces, quotes, '=', '<', '>' or '`'.
func attrValue(s string) int {
	if s == "" {
		return 0
	}
	if q := s[0]; q == '"' || q == '\'' {
		if j := strings.IndexByte(s[1:], q); j >= 0 {
			return j + 2
		}
		return 0
	}
	n := 0
	for n < len(s) && !strings.ContainsRune(" \t\"'=<>`", rune(s[n])) {
		n++
	}
	return n
}

func isAttrNameStart(c byte) bool { return isASCIILetter(c) || c == '_' || c == ':' }

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// htmlEnd returns the last line of the HTML block of kind starting at i.
func htmlEnd(lines []string, i, kind int) int {
	var endMark string
	switch kind {
	case htmlComment:
		endMark = "-->"
	case htmlProcessing:
		endMark = "?>"
	case htmlDeclaration:
		endMark = ">"
	case htmlCDATA:
		endMark = "]]>"
	case htmlRaw:
		for j := i; j < len(lines); j++ {
			low := strings.ToLower(lines[j])
			for _, t := range htmlRawTags {
				if strings.Contains(low, "</"+t+">") {
					return j
				}
			}
		}
		return lastNonBlank(lines, i)
	default:
		j := i + 1
		for j < len(lines) && !isBlank(lines[j]) {
			j++
		}
		return j - 1
	}
	for j := i; j < len(lines); j++ {
		l := lines[j]
		if j == i {
			// The opening "<!--" must not close itself: "<!-->" aside,
			// look past the opener.
			l = l[min(len(l), strings.IndexByte(l, '<')+2):]
		}
		if strings.Contains(l, endMark) {
			return j
		}
	}
	return lastNonBlank(lines, i)
}

// lastNonBlank is the last line from i on with more than white space, or
// i: where a block left open to the end of the note ends.
func lastNonBlank(lines []string, i int) int {
	j := len(lines) - 1
	for j > i && isBlank(lines[j]) {
		j--
	}
	return j
}

// isDelimiterRow is a table's "| --- | :-: |" row: pipes, colons, dashes
// and spaces, with at least one pipe and one dash.
func isDelimiterRow(l string) bool {
	pipe, dash := false, false
	for i := 0; i < len(l); i++ {
		switch l[i] {
		case '|':
			pipe = true
		case '-':
			dash = true
		case ':', ' ', '\t':
		default:
			return false
		}
	}
	return pipe && dash
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
