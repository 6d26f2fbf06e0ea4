// Command boilervault makes a vault shaped like one whose notes were made
// from templates, and says how much of it is template boilerplate.
//
//	boilervault make SRC DST   copy the notes of SRC to DST, one of four
//	                           templates' badges and query section after
//	                           the front matter and its footer at the end
//	                           of four notes in five (and of the -keep notes)
//	boilervault share DIR      the chunks (memd's heuristic chunker) that
//	                           hold nothing but blocks in 10 or more notes
//	                           (and headings), as memd's rule has it, and
//	                           their share of all chunks and of the text
//
// The templates are a real vault's shape (issue 15: badge blocks and page
// footers were 43% of an Obsidian vault's chunks, and outranked the note
// that answers): each speaks of a topic that notes of the vault explain
// (preview, pods, lookup, backlinks), so its blocks compete with them.
package main

import (
	"flag"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/memd-dev/memd/pipeline/chunk"
	"github.com/memd-dev/memd/pipeline/parse"
)

// template is a template's blocks: what goes after the front matter and
// what ends the note.
type template struct{ header, footer string }

// templates are four, each in a fifth of the notes (the last fifth has
// none), each about one topic that notes of their own also explain.
var templates = []template{
	page("wiki-page", "markdown-preview", "Markdown Preview",
		"Read this page in the Markdown Preview: the preview renders note references, diagrams and math. Toggle the preview with the preview command, or lock the preview to keep this note in view."),
	page("pod-export", "pods-export", "Pods",
		"This page can be exported with pods. Pods export notes to other formats and places: the Markdown pod, the HTML pod, the JSON pod. Configure the pods once, then run the export pod command."),
	page("lookup-hub", "lookup-navigation", "Lookup",
		"Find any note named here with lookup. Lookup finds or creates a note by name; type part of a name and lookup shows the notes that match. Lookup also finds schemas and journal notes."),
	page("linked-page", "backlinks-panel", "Backlinks",
		"See which notes link to this page in the backlinks panel. The backlinks panel lists every note that links here, with the line of the link; open the backlinks panel from the sidebar."),
}

func page(name, badge, topic, about string) template {
	header := "![status](https://img.shields.io/badge/status-published-brightgreen) ![" + badge +
		"](https://img.shields.io/badge/" + badge + "-blue)\n\n" +
		"## Related notes\n\n```query\nLIST FROM [[dendron.topic]] WHERE contains(template, \"" + name + "\")\nSORT file.mtime DESC\nLIMIT 10\n```\n\n" +
		"| page | status | template |\n| --- | --- | --- |\n| this page | published | " + name + " |\n\n" +
		"> [!info] " + topic + ": " + about + "\n"
	footer := "\n---\n\n## About this page\n\n" + about + " This page is made from the " + name +
		" template; edit the template, not this footer.\n\n" +
		"- Found a mistake on this page? Open an issue, or send a pull request with the fix.\n" +
		"- Want to know more? Ask in the community chat, or read the getting started guide first.\n" +
		"- Back to the index of all topics, or on to the next page of this section.\n\n*" + name + " template · " + topic + " · licensed CC BY 4.0*\n"
	return template{header, footer}
}

func main() {
	keep := flag.String("keep", "", "comma-separated note names that always get the template")
	flag.Parse()
	var err error
	switch flag.Arg(0) {
	case "make":
		err = makeVault(flag.Arg(1), flag.Arg(2), strings.Split(*keep, ","))
	case "share":
		err = share(flag.Arg(1))
	default:
		err = fmt.Errorf("usage: boilervault [-keep a.md,b.md] make SRC DST | share DIR")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "boilervault:", err)
		os.Exit(1)
	}
}

func makeVault(src, dst string, keep []string) error {
	files, err := filepath.Glob(filepath.Join(src, "*.md"))
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	templated := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		name := filepath.Base(f)
		h := fnv.New32a()
		h.Write([]byte(name))
		t := h.Sum32() % 5
		if t == 0 && contains(keep, name) {
			t = 1
		}
		if t > 0 {
			b = []byte(withTemplate(string(b), templates[t-1]))
			templated++
		}
		if err := os.WriteFile(filepath.Join(dst, name), b, 0o644); err != nil {
			return err
		}
	}
	fmt.Printf("%d notes, %d with the template\n", len(files), templated)
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// withTemplate puts t's header after the front matter and its footer at
// the end.
func withTemplate(s string, t template) string {
	head, body := "", s
	if strings.HasPrefix(s, "---\n") {
		if i := strings.Index(s[4:], "\n---\n"); i >= 0 {
			head, body = s[:4+i+5], s[4+i+5:]
		}
	}
	return head + "\n" + t.header + "\n" + strings.TrimRight(body, "\n") + "\n" + t.footer
}

func share(dir string) error {
	files, err := filepath.Glob(filepath.Join(dir, "*.md"))
	if err != nil {
		return err
	}
	notes := make([]*parse.Note, 0, len(files))
	holders := map[string]int{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		n, err := parse.Parse(f, b)
		if err != nil {
			continue
		}
		notes = append(notes, n)
		for _, bl := range n.Blocks {
			if counted(bl.Kind) {
				holders[bl.ID]++
			}
		}
	}
	var chunks, boiler, bytes, boilerBytes int
	for _, n := range notes {
		for _, c := range chunk.Heuristic(n, chunk.Options{}) {
			chunks++
			bytes += len(c.Text)
			some, own := false, false
			for i := c.FirstBlock; i <= c.LastBlock; i++ {
				b := n.Blocks[i]
				switch {
				case counted(b.Kind) && holders[b.ID] >= 10:
					some = true
					boilerBytes += b.EndLine - b.StartLine + len(b.Text) // text and its line ends
				case b.Kind != parse.Heading && strings.ContainsFunc(b.Text, isWord):
					own = true
				}
			}
			if some && !own {
				boiler++
			}
		}
	}
	fmt.Printf("%d notes, %d chunks; %d chunks (%.1f%%) are boilerplate only; boilerplate is %.1f%% of chunk text\n",
		len(notes), chunks, boiler, 100*float64(boiler)/float64(chunks), 100*float64(boilerBytes)/float64(bytes))
	return nil
}

// counted is memd's rule (pipeline.mayBeBoilerplate): headings, front
// matter and breaks are not counted across notes.
func counted(k parse.Kind) bool {
	return k != parse.Heading && k != parse.FrontMatter && k != parse.ThematicBreak
}

func isWord(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
