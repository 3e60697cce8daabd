/**
 * The local renderer's recipes and the public catalogue agree: every option
 * the local model claims to honour (other than a list's no-op first entry)
 * has a recipe, and no recipe names an id the catalogue does not list.
 */
import assert from "node:assert/strict";
import { LOCAL_CAPABILITIES } from "../../server/imaging/local/capabilities.ts";
import {
  BACKDROPS,
  BASE_RECIPES,
  CAMERA_RECIPES,
  EXTRA_LAYERS,
  GRADES,
  LIP_FINISH,
  PERSON_LIGHTS,
} from "../../server/imaging/local/recipes.ts";
import { CATALOG, type LightingEntry, type SettingEntry } from "../../server/styling/catalog.ts";
import type { OptionKey } from "../../server/styling/option-keys.ts";

const TABLES: [OptionKey, readonly { id: string }[], Readonly<Record<string, unknown>>][] = [
  ["lips", CATALOG.makeup.lips, LIP_FINISH],
  ["baseMakeup", CATALOG.makeup.baseMakeup, BASE_RECIPES],
  ["extras", CATALOG.makeup.extras, EXTRA_LAYERS],
  ["cameraLens", CATALOG.scene.camera, CAMERA_RECIPES],
  ["setting", CATALOG.scene.settings, BACKDROPS],
  ["lighting", CATALOG.scene.lighting, GRADES],
];

for (const [key, list, recipes] of TABLES) {
  Deno.test(`recipes: every honoured ${key} option has a recipe, and every recipe a catalogue entry`, () => {
    const honoured = LOCAL_CAPABILITIES.supported[key] ?? [];
    assert.ok(honoured.length > 1, `the local model honours ${key}`);
    const missing = honoured.filter((id) => id !== list[0].id && !(id in recipes));
    assert.deepEqual(missing, [], `${key} options without a recipe`);
    const ids = new Set(list.map((e) => e.id));
    const unknown = Object.keys(recipes).filter((id) => !ids.has(id));
    assert.deepEqual(unknown, [], `${key} recipes for ids the catalogue does not list`);
    assert.ok(!(list[0].id in recipes), `the no-op ${key} entry "${list[0].id}" must not paint anything`);
  });
}

Deno.test("recipes: a setting's preview swatch is its backdrop's colours; every light's tile has a highlight and a shadow", () => {
  const settings = CATALOG.scene.settings as readonly SettingEntry[];
  for (const e of settings.slice(1)) {
    assert.deepEqual(e.swatch, BACKDROPS[e.id].colors, `${e.id}: swatch and backdrop differ`);
  }
  assert.equal(settings[0].swatch, undefined, "the original background has no swatch");
  const lights = CATALOG.scene.lighting as readonly LightingEntry[];
  for (const e of lights.slice(1)) {
    assert.equal(e.swatch?.length, 2, `${e.id}: swatch`);
    for (const c of e.swatch!) assert.match(c, /^#[0-9a-f]{6}$/i, `${e.id}: ${c}`);
  }
  assert.equal(lights[0].swatch, undefined, "natural light has no swatch");
});

Deno.test("recipes: every light with a direction is a lighting option with a grade", () => {
  const ids = new Set(CATALOG.scene.lighting.map((e) => e.id));
  for (const id of Object.keys(PERSON_LIGHTS)) {
    assert.ok(ids.has(id) && id in GRADES, `${id}: not a graded lighting option`);
  }
});
