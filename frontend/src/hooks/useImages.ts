import { useEffect, useState } from 'react';
import { api } from '../api/backend';
import type { ImageRef } from '../api/types';

/** Data URLs of stored images, loaded from Go by hash as they arrive; a failed one stays absent. */
export function useImageURLs(images: ImageRef[]): Record<string, string> {
  const [urls, setUrls] = useState<Record<string, string>>({});
  useEffect(() => {
    let live = true;
    for (const im of images) {
      api
        .image(im.hash)
        .then((u) => live && setUrls((m) => ({ ...m, [im.hash]: u })))
        .catch(() => {}); // the alt text stands in
    }
    return () => {
      live = false;
    };
  }, [images]);
  return urls;
}
