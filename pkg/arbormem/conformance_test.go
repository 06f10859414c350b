package arbormem

import (
	"context"
	"testing"

	"github.com/arbor-eval/arbor/pkg/config"
	"github.com/arbor-eval/arbor/pkg/memory"
	"github.com/arbor-eval/arbor/pkg/memory/memorytest"
)

func TestConformance(t *testing.T) {
	memorytest.Run(t, func(ctx context.Context, episode string) (memory.System, error) {
		return New(config.DefaultArborMem(), testDeps())
	})
}
