package experiment

import (
	"encoding/json"

	"github.com/scent-crawler/scent/crawler"
)

// RecordedSettings are a crawl's settings as its database records them
// (the config of crawler.Crawler.Run): the configuration's strategy,
// frontier, budget, workers, window and policies, and the extra entries
// (the seed file, the model, politeness, what the crawl is for). Every
// crawl that scent runs records its settings this way.
func RecordedSettings(cfg crawler.Config, extra map[string]any) string {
	m := map[string]any{
		"strategy": cfg.Strategy, "frontier": cfg.Frontier, "max_pages": cfg.MaxPages, "workers": cfg.Workers,
		"window": cfg.Segment.Window, "learn": cfg.Learner != nil, "sections": cfg.Sections, "tunnel": cfg.Tunnel,
		"promote": cfg.Promote, "lockstep": cfg.Lockstep, "overlap": cfg.Overlap, "site_norm": cfg.SiteNorm != nil,
		"survey": cfg.Survey,
	}
	for k, v := range extra {
		m[k] = v
	}
	b, err := json.Marshal(m)
	if err != nil {
		// Only values that JSON cannot hold fail; extra holds strings
		// and numbers.
		return "{}"
	}
	return string(b)
}
