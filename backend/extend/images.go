package extend

import (
	"context"
	"fmt"

	"github.com/loopdesk/loopdesk/backend/images"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/provider"
	"github.com/loopdesk/loopdesk/backend/store"
)

// BlobStore gives a stored image's bytes (*store.DB).
type BlobStore interface {
	GetBlob(ctx context.Context, hash string) (store.Blob, error)
}

// Images fits the images of a run's requests: every user message's images (its ImageRefs)
// are loaded and fitted to the provider's limits for a request carrying that many images,
// the originals in the journal unchanged. A message keeps what was loaded (the session's
// message cache holds it), so an image is read and fitted once per session. A model that
// is sent no images (images.Vision.TextOnly) gets none; the front end that attached them said
// so. A blob that cannot be read fails the request, naming the image.
func Images(blobs BlobStore) loop.Extension {
	return func(_ context.Context, run loop.RunInfo, next loop.Ports) loop.Ports {
		model, sees := next.Model, run.Vision.TextOnly(run.Model) == ""
		next.Model = loop.ModelFunc(func(ctx context.Context, req provider.Request, h provider.Handler) provider.Response {
			msgs, err := withImages(ctx, blobs, sees, req.Messages)
			if err != nil {
				return provider.Response{Status: provider.StatusProviderError, Err: err}
			}
			req.Messages = msgs
			return model.Stream(ctx, req, h)
		})
		return next
	}
}

// withImages loads the images msgs name into their Images, in place; without sees it returns
// a copy of msgs without images.
func withImages(ctx context.Context, blobs BlobStore, sees bool, msgs []provider.Message) ([]provider.Message, error) {
	count := 0
	for i := range msgs {
		count += len(msgs[i].ImageRefs)
	}
	if count == 0 {
		return msgs, nil
	}
	if !sees {
		out := make([]provider.Message, len(msgs))
		copy(out, msgs)
		for i := range out {
			out[i].Images = nil
		}
		return out, nil
	}
	for i := range msgs {
		m := &msgs[i]
		if len(m.ImageRefs) == 0 || len(m.Images) == len(m.ImageRefs) {
			continue
		}
		loaded := make([]provider.Image, 0, len(m.ImageRefs))
		for _, h := range m.ImageRefs {
			b, err := blobs.GetBlob(ctx, h)
			if err != nil {
				return nil, fmt.Errorf("image %s: %w", h, err)
			}
			fit, err := images.Fit(b.Data, images.Limits{}, count)
			if err != nil {
				return nil, fmt.Errorf("image %s: %w", h, err)
			}
			loaded = append(loaded, provider.Image{MediaType: fit.MIME, Data: fit.Data})
		}
		m.Images = loaded
	}
	return msgs, nil
}
