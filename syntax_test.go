package memd

import (
	"slices"
	"testing"
)

func TestLinkSpans(t *testing.T) {
	spans := LinkSpans("a [[b]] c [[d|e]] [[open")
	if want := [][2]int{{2, 7}, {10, 17}}; !slices.Equal(spans, want) {
		t.Errorf("spans %v, want %v", spans, want)
	}
}

func TestHeading(t *testing.T) {
	for line, want := range map[string]string{
		"## Some Details ##": "Some Details", "# T": "T", "** TODO Plan :work:": "TODO Plan",
		"#tag": "", "####### seven": "", "*bold*": "", "plain": "",
	} {
		_, text, ok := Heading(line)
		if text != want || ok != (want != "") {
			t.Errorf("Heading(%q) = %q %v, want %q", line, text, ok, want)
		}
	}
}
