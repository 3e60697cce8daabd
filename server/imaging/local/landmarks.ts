/**
 * MediaPipe face-mesh landmark indices (468 mesh + 10 iris points). R/L are
 * the subject's right/left. Source: the MediaPipe
 * canonical topology.
 */
export const LIPS_OUTER = [
  61,
  185,
  40,
  39,
  37,
  0,
  267,
  269,
  270,
  409,
  291,
  375,
  321,
  405,
  314,
  17,
  84,
  181,
  91,
  146,
];
export const LIPS_INNER = [
  78,
  191,
  80,
  81,
  82,
  13,
  312,
  311,
  310,
  415,
  308,
  324,
  318,
  402,
  317,
  14,
  87,
  178,
  88,
  95,
];
export const EYE_R = [
  33,
  246,
  161,
  160,
  159,
  158,
  157,
  173,
  133,
  155,
  154,
  153,
  145,
  144,
  163,
  7,
];
export const EYE_L = [
  263,
  466,
  388,
  387,
  386,
  385,
  384,
  398,
  362,
  382,
  381,
  380,
  374,
  373,
  390,
  249,
];
/** Upper lash lines from the outer corner to the inner corner. */
export const LASH_R = [33, 246, 161, 160, 159, 158, 157, 173, 133];
export const LASH_L = [263, 466, 388, 387, 386, 385, 384, 398, 362];
/** Lower lash lines from the outer corner to the inner corner. */
export const LOWER_LASH_R = [33, 7, 163, 144, 145, 153, 154, 155, 133];
export const LOWER_LASH_L = [263, 249, 390, 373, 374, 380, 381, 382, 362];
/** Crease lines from outer to inner. */
export const CREASE_R = [113, 225, 224, 223, 222, 221, 189];
export const CREASE_L = [342, 445, 444, 443, 442, 441, 413];
/** Lower brow edge from outer to inner. */
export const BROW_LOW_R = [35, 124, 46, 53, 52, 65];
export const BROW_LOW_L = [265, 353, 276, 283, 282, 295];
/** Brow outlines (upper edge outer -> inner, then lower edge inner -> outer). */
export const BROW_R = [70, 63, 105, 66, 107, 55, 65, 52, 53, 46];
export const BROW_L = [300, 293, 334, 296, 336, 285, 295, 282, 283, 276];
export const CHEEK_R = [116, 117, 118, 101, 36, 205, 187, 123];
export const CHEEK_L = [345, 346, 347, 330, 266, 425, 411, 352];
/** Face oval (Human's silhouette), clockwise from the forehead top (10). */
export const FACE_OVAL = [
  10,
  338,
  297,
  332,
  284,
  251,
  389,
  356,
  454,
  323,
  361,
  288,
  397,
  365,
  379,
  378,
  400,
  377,
  152,
  148,
  176,
  149,
  150,
  136,
  172,
  58,
  132,
  93,
  234,
  127,
  162,
  21,
  54,
  103,
  67,
  109,
];
/** Nostril area (kept out of the base layer's smoothing). */
export const NOSE_BRIDGE = [168, 6, 197, 195, 5, 4];
/** The nose's outline: the bridge's top, one side and wing, under the tip, the other wing and side (no blush there). */
export const NOSE_OUTLINE = [168, 417, 358, 2, 129, 193];
export const FACE_LEFT_EDGE = 234;
export const FACE_RIGHT_EDGE = 454;
export const FOREHEAD_TOP = 10;
/** The glabella, just above the line of the brows. */
export const BETWEEN_BROWS = 9;
export const CHIN = 152;
export const NOSE_TIP = 4;
export const IRIS_R = 468;
export const IRIS_L = 473;
/** Mesh points lying on plain skin (cheeks, forehead, chin), for skin colour samples. */
export const SKIN_SAMPLES = [
  151,
  9,
  108,
  337,
  50,
  280,
  101,
  330,
  36,
  266,
  205,
  425,
  199,
  175,
  118,
  347,
  123,
  352,
  207,
  427,
];
/** The jaw line from below the left mouth corner round the chin to the right one (part of FACE_OVAL). */
const JAW = FACE_OVAL.slice(FACE_OVAL.indexOf(397), FACE_OVAL.indexOf(172) + 1);
/** Beard zones. Above the upper lip: the nose base, then the upper lip outline from 291 back to 61. */
export const MOUSTACHE_ZONE = [98, 97, 2, 326, 327, ...LIPS_OUTER.slice(0, 11).reverse()];
/** Below the lower lip (61 -> 291) down to the jaw line. */
export const CHIN_ZONE = [61, ...LIPS_OUTER.slice(11).reverse(), 291, ...JAW];
/**
 * The hollow under each eye: the lower lash line (outer -> inner), then back
 * along the second ring of points below it (inner -> outer).
 */
export const UNDER_EYE_R = [...LOWER_LASH_R, 243, 233, 232, 231, 230, 229, 228, 31, 226, 130];
export const UNDER_EYE_L = [...LOWER_LASH_L, 463, 453, 452, 451, 450, 449, 448, 261, 446, 359];
