// The page's entry: the stylesheet (so the built index.html links it, and the frame in
// index.html paints styled before any script runs), then the app once that frame is on
// screen (lib/afterPaint.ts says why).
import './style.css';
import { afterFirstPaint, windowClock } from './lib/afterPaint';

afterFirstPaint(() => void import('./main'), windowClock);
