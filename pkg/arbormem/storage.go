package arbormem

import (
	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/index"
)

// VectorStorages resolves arbormem.vector_storage and fact_vector_storage
// into the storage of the node and record channels' rows and of the fact
// channel's, with model memory operations (heuristic false) or rule-based
// ones. Exported so that arbor perf recall measures each channel over the
// rows a run keeps, without a copy of these rules.
func VectorStorages(cfg config.ArborMem, heuristic bool) (channels, facts index.Storage) {
	channels = storageOf(cfg.VectorStorage, index.Int8, heuristic)
	// Fact storage "auto" follows vector_storage when that is named; where
	// both are auto, the model path gives facts int4 (docs/FIDELITY.md,
	// vector_storage).
	if v := cfg.FactVectorStorage; (v == "" || v == "auto") && cfg.VectorStorage != "" && cfg.VectorStorage != "auto" {
		return channels, channels
	}
	return channels, storageOf(cfg.FactVectorStorage, index.Int4, heuristic)
}

// storageOf is a storage setting's index.Storage; "auto" (or empty) is
// model on the model path and float32 with rule-based memory operations.
func storageOf(v string, model index.Storage, heuristic bool) index.Storage {
	switch {
	case v == "int8":
		return index.Int8
	case v == "int4":
		return index.Int4
	case v == "float32":
		return index.Float32
	case !heuristic:
		return model
	}
	return index.Float32
}

// FactSearchDepth is how many nearest facts a recall asks the fact
// channel for before the fact_min_sim floor: four per fact kept, at least
// 40. Exported so that arbor perf recall measures that channel at the
// depth a run searches it.
func FactSearchDepth(cfg config.ArborMem) int { return max(4*cfg.MaxFacts, 40) }
