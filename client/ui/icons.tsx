/**
 * A few inline icons (no icon font, no extra bundle). Every icon is `shrink-0`: inside a flex row
 * (a button with a label) it keeps its size instead of being squeezed to nothing.
 */
import type { SVGProps } from "react";

type P = SVGProps<SVGSVGElement>;
const s = (props: P) => ({
  viewBox: "0 0 24 24",
  fill: "none",
  stroke: "currentColor",
  strokeWidth: 2,
  strokeLinecap: "round" as const,
  strokeLinejoin: "round" as const,
  "aria-hidden": true,
  ...props,
  className: `shrink-0 ${props.className ?? "size-5"}`,
});

export const UploadIcon = (p: P) => (
  <svg {...s(p)}>
    <path d="M12 16V4M7 9l5-5 5 5M4 16v3a1 1 0 0 0 1 1h14a1 1 0 0 0 1-1v-3" />
  </svg>
);
export const CameraIcon = (p: P) => (
  <svg {...s(p)}>
    <path d="M4 8h3l2-3h6l2 3h3a1 1 0 0 1 1 1v9a1 1 0 0 1-1 1H4a1 1 0 0 1-1-1V9a1 1 0 0 1 1-1z" />
    <circle cx="12" cy="13" r="3.5" />
  </svg>
);
export const DownloadIcon = (p: P) => (
  <svg {...s(p)}>
    <path d="M12 4v12M7 11l5 5 5-5M4 20h16" />
  </svg>
);
export const XIcon = (p: P) => (
  <svg {...s(p)}>
    <path d="M6 6l12 12M18 6L6 18" />
  </svg>
);
export const ArrowLeftIcon = (p: P) => (
  <svg {...s(p)}>
    <path d="M19 12H5M11 6l-6 6 6 6" />
  </svg>
);
export const SparklesIcon = (p: P) => (
  <svg {...s(p)}>
    <path d="M12 3l1.8 4.7L18.5 9.5l-4.7 1.8L12 16l-1.8-4.7L5.5 9.5l4.7-1.8z" />
    <path d="M19 15l.8 2.2L22 18l-2.2.8L19 21l-.8-2.2L16 18l2.2-.8z" />
  </svg>
);
export const RotateIcon = (p: P) => (
  <svg {...s(p)}>
    <path d="M21 12a9 9 0 1 1-3-6.7M21 4v5h-5" />
  </svg>
);
export const CoinIcon = (p: P) => (
  <svg {...s(p)}>
    <circle cx="12" cy="12" r="8.5" />
    <path d="M12 7.5v9M9.5 10a2.5 2 0 0 1 2.5-1.5c1.4 0 2.5.7 2.5 1.7 0 2.4-5 1.2-5 3.6 0 1 1.1 1.7 2.5 1.7a2.5 2 0 0 0 2.5-1.5" />
  </svg>
);
export const LogoutIcon = (p: P) => (
  <svg {...s(p)}>
    <path d="M15 4h3a2 2 0 0 1 2 2v12a2 2 0 0 1-2 2h-3M10 17l-5-5 5-5M5 12h11" />
  </svg>
);
export const CheckIcon = (p: P) => (
  <svg {...s(p)}>
    <path d="M5 12.5l4.5 4.5L19 7.5" />
  </svg>
);
export const UserIcon = (p: P) => (
  <svg {...s(p)}>
    <circle cx="12" cy="8" r="4" />
    <path d="M4 20c1.5-3.5 4.5-5 8-5s6.5 1.5 8 5" />
  </svg>
);
export const CompareIcon = (p: P) => (
  <svg {...s(p)}>
    <path d="M12 3v18M8 8l-4 4 4 4M16 8l4 4-4 4" />
  </svg>
);
