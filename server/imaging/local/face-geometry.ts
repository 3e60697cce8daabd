/**
 * A detected face in canvas coordinates with the measures the layers scale
 * by (face width, face height, the face's "up" direction).
 */
import type { Point } from "./masks.ts";
import { dist } from "./masks.ts";
import { CHIN, FACE_LEFT_EDGE, FACE_RIGHT_EDGE, FOREHEAD_TOP, IRIS_L, IRIS_R } from "./landmarks.ts";

export interface FaceGeometry {
  pts: Point[];
  /** Face width (cheek to cheek, landmarks 234-454). */
  fw: number;
  /** Forehead top to chin. */
  fh: number;
  /** Unit vector from chin toward forehead. */
  up: Point;
  eyeCenter: Point;
  center: Point;
}

export function faceGeometry(pts: Point[]): FaceGeometry {
  const fw = dist(pts[FACE_LEFT_EDGE], pts[FACE_RIGHT_EDGE]);
  const fh = dist(pts[FOREHEAD_TOP], pts[CHIN]);
  const ux = pts[FOREHEAD_TOP][0] - pts[CHIN][0];
  const uy = pts[FOREHEAD_TOP][1] - pts[CHIN][1];
  const ul = Math.hypot(ux, uy) || 1;
  const ir = pts[IRIS_R] ?? pts[33], il = pts[IRIS_L] ?? pts[263];
  return {
    pts,
    fw,
    fh,
    up: [ux / ul, uy / ul],
    eyeCenter: [(ir[0] + il[0]) / 2, (ir[1] + il[1]) / 2],
    center: [
      (pts[FACE_LEFT_EDGE][0] + pts[FACE_RIGHT_EDGE][0]) / 2,
      (pts[FOREHEAD_TOP][1] + pts[CHIN][1]) / 2,
    ],
  };
}

/** Landmarks by index. */
export function pick(g: FaceGeometry, idx: number[]): Point[] {
  return idx.map((i) => g.pts[i]);
}
