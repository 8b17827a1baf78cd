import type { ClipboardEvent, DragEvent } from 'react';
import { useImageURLs } from '../hooks/useImages';
import type { ImageInput, ImageRef } from '../api/types';

/** The types a person may attach (Go checks the bytes again). */
export const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'];

/** An image attached in the message box, not sent yet. */
export interface Attached extends ImageInput {
  id: number;
}

let nextID = 1;

/** Reads image files as data URLs; other files are named in the returned refusals. */
export async function readImages(files: FileList | File[]): Promise<{ images: Attached[]; refused: string[] }> {
  const images: Attached[] = [];
  const refused: string[] = [];
  for (const f of Array.from(files)) {
    if (!IMAGE_TYPES.includes(f.type)) {
      refused.push(f.name || f.type || 'a file');
      continue;
    }
    const data = await new Promise<string>((res, rej) => {
      const r = new FileReader();
      r.onload = () => res(String(r.result));
      r.onerror = () => rej(r.error);
      r.readAsDataURL(f);
    });
    images.push({ id: nextID++, name: f.name || `pasted-${nextID}.png`, data });
  }
  return { images, refused };
}

/** The image files of a paste or a drop. */
export function filesOf(e: ClipboardEvent | DragEvent): File[] {
  const dt = 'clipboardData' in e ? e.clipboardData : e.dataTransfer;
  return Array.from(dt?.files ?? []);
}

/** Thumbnails of the attached images, each with its remove button; a note when the model is text-only. */
export function AttachedImages({ images, onRemove, textOnly }: { images: Attached[]; onRemove: (id: number) => void; textOnly: boolean }) {
  if (images.length === 0) return null;
  return (
    <div className="attached">
      <ul className="thumbs" aria-label="Attached images">
        {images.map((im) => (
          <li key={im.id}>
            <img src={im.data} alt={im.name} />
            <button type="button" className="small" aria-label={`Remove image ${im.name}`} onClick={() => onRemove(im.id)}>
              ×
            </button>
          </li>
        ))}
      </ul>
      {textOnly && (
        <p className="note" role="note">
          The model is text-only (see Settings → Images): the images are kept in the session but not sent to it.
        </p>
      )}
    </div>
  );
}

/** The images of a stored message, loaded from Go by hash; each one a provider refused says so, and why. */
export function RowImages({ images, excluded }: { images: ImageRef[]; excluded?: Record<string, string> }) {
  const urls = useImageURLs(images);
  return (
    <ul className="thumbs" aria-label="Images">
      {images.map((im, i) => {
        const reason = excluded?.[im.hash];
        const out = im.excluded || reason !== undefined;
        const name = im.name || `image ${i + 1}`;
        return (
          <li key={`${im.hash}-${i}`} className={out ? 'excluded' : undefined}>
            {urls[im.hash] ? <img src={urls[im.hash]} alt={name} /> : <span className="thumb-placeholder">{im.name || 'image'}</span>}
            {out && (
              <span className="note" role="note" aria-label={`${name} excluded from context`} title={reason}>
                Excluded from context{reason ? `: ${reason}` : ''}
              </span>
            )}
          </li>
        );
      })}
    </ul>
  );
}
