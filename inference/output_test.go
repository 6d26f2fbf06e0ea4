package inference

import (
	"strings"
	"testing"
)

func TestTextOutput(t *testing.T) {
	for _, tc := range []struct {
		name     string
		stop     []string
		pieces   []string
		released []string // what each add releases
		text     string
		stopped  bool
	}{
		{"no stop", nil, []string{"ab", "c"}, []string{"ab", "c"}, "abc", false},
		{"stop split in three", []string{"END"}, []string{"x E", "N", "D y"}, []string{"x ", "", ""}, "x ", true},
		{"prefix that does not finish", []string{"END"}, []string{"aE", "Nb"}, []string{"a", "ENb"}, "aENb", false},
		{"overlapping prefixes", []string{"aab"}, []string{"aa", "a", "b"}, []string{"", "a", ""}, "a", true},
		{"utf8 held", nil, []string{"a\xe2\x82", "\xac"}, []string{"a", "€"}, "a€", false},
		{"invalid byte released", nil, []string{"a\xff", "b"}, []string{"a\xff", "b"}, "a\xffb", false},
		{"empty stop ignored", []string{""}, []string{"a"}, []string{"a"}, "a", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := newTextOutput(tc.stop)
			stopped := false
			var all strings.Builder
			for i, p := range tc.pieces {
				rel, st := o.add(p)
				all.WriteString(rel)
				if rel != tc.released[i] {
					t.Fatalf("add %q released %q, want %q", p, rel, tc.released[i])
				}
				if st {
					stopped = true
					break
				}
			}
			all.WriteString(o.flush())
			if stopped != tc.stopped || string(o.text) != tc.text || all.String() != tc.text {
				t.Fatalf("text %q released %q stopped %v; want %q %v", o.text, all.String(), stopped, tc.text, tc.stopped)
			}
		})
	}
}
