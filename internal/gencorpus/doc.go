// Package gencorpus writes a generated Markdown corpus of any size from a
// fixed seed: the notes pipeline's indexing benchmarks and crash tests
// index, and scripts/gencorpus writes to disk so that qmd can index the
// same notes (scripts/qmd-compare.sh).
package gencorpus
