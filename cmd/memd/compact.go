package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/memd-dev/memd/store"
)

// The store is compacted by itself when the space not holding data passes
// compactShare of a file of at least compactMinBytes, checked every
// compactEvery. A first index leaves about a fifth of the file free
// (pages freed as batches rewrite the postings' tails, and the room bbolt
// grows into): 19% on SciFact. A full reindex, which every change of the
// indexing rules brings, leaves more than a third: 37% on SciFact (35.5
// MiB for 22 MiB of data). The share sits between the two, so a reindexed
// store shrinks back by itself and a fresh one is left alone.
const (
	compactShare    = 0.3
	compactMinBytes = 16 << 20
	compactEvery    = 10 * time.Minute
)

// compactWhenWasteful checks the store's space every compactEvery until
// ctx ends, and compacts it when it is wasteful.
func compactWhenWasteful(ctx context.Context, db *store.DB, log *slog.Logger) {
	t := time.NewTicker(compactEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if sp := db.Space(); sp.Wasteful(compactShare, compactMinBytes) {
			compactStore(db, sp, log)
		}
	}
}

func compactStore(db *store.DB, sp store.Space, log *slog.Logger) {
	start := time.Now()
	before, after, err := db.Compact()
	if err != nil {
		log.Warn("compact the store", "err", err)
		return
	}
	log.Info("compacted the store", "before", before, "after", after, "live", sp.LiveBytes, "took", time.Since(start).Round(time.Millisecond))
}
