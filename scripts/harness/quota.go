package harness

import (
	"context"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/storage"
	"github.com/chromedp/chromedp"
)

// OverrideQuota sets the storage quota of origin (e.g. a Server's URL) to
// bytes through CDP Storage.overrideQuotaForOrigin; bytes < 0 removes the
// override.
func (b *Browser) OverrideQuota(ctx context.Context, origin string, bytes int64) error {
	p := storage.OverrideQuotaForOriginParams{Origin: origin}
	if bytes >= 0 {
		q := float64(bytes)
		p.QuotaSize = &q
	}
	return chromedp.Do(b.browserCtx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, storage.OverrideQuotaForOrigin, p)
		return err
	}))
}
