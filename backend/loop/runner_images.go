package loop

import (
	"context"
	"fmt"

	"github.com/loopdesk/loopdesk/backend/images"
	"github.com/loopdesk/loopdesk/backend/provider"
	"github.com/loopdesk/loopdesk/backend/store"
)

// BlobStore gives a stored image's bytes; a Store that is one (*store.DB) lets user rows'
// images reach the model.
type BlobStore interface {
	GetBlob(ctx context.Context, hash string) (store.Blob, error)
}

// withImages loads the images msgs name (user rows' ImageRefs) into their Images, each fitted
// to the provider's limits for a request carrying that many images; the originals in the
// journal are not changed. A message keeps what was loaded (the session's message cache holds
// it), so an image is read and fitted once per session. A model that takes no images
// (images.SeesImages) gets none: then msgs is copied without them, and the page says why.
func (rn *run) withImages(ctx context.Context, msgs []provider.Message) ([]provider.Message, error) {
	count := 0
	for i := range msgs {
		count += len(msgs[i].ImageRefs)
	}
	if count == 0 {
		return msgs, nil
	}
	if !images.SeesImages(rn.spec.Model) {
		out := make([]provider.Message, len(msgs))
		copy(out, msgs)
		for i := range out {
			out[i].Images = nil
		}
		return out, nil
	}
	blobs, ok := rn.r.cfg.Store.(BlobStore)
	if !ok {
		return msgs, nil
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
