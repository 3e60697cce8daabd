/**
 * The local renderer's recipes and the public catalogue agree: every option
 * the local model claims to honour (other than a list's no-op first entry)
 * has a recipe, and no recipe names an id the catalogue does not list.
 */
import assert from "node:assert/strict";
import { LOCAL_CAPABILITIES } from "../../server/imaging/local/capabilities.ts";
import {
  BASE_RECIPES,
  CAMERA_RECIPES,
  EXTRA_LAYERS,
  LIP_FINISH,
} from "../../server/imaging/local/recipes.ts";
import { CATALOG, type LightingEntry, type SettingEntry } from "../../server/styling/catalog.ts";
import type { OptionKey } from "../../server/styling/option-keys.ts";

const TABLES: [OptionKey, readonly { id: string }[], Readonly<Record<string, unknown>>][] = [
  ["lips", CATALOG.makeup.lips, LIP_FINISH],
  ["baseMakeup", CATALOG.makeup.baseMakeup, BASE_RECIPES],
  ["extras", CATALOG.makeup.extras, EXTRA_LAYERS],
  ["cameraLens", CATALOG.scene.camera, CAMERA_RECIPES],
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

Deno.test("recipes: every honoured setting has a backdrop and every honoured light a colour grade", () => {
  const settings = CATALOG.scene.settings as readonly SettingEntry[];
  const lights = CATALOG.scene.lighting as readonly LightingEntry[];
  const noBackdrop = (LOCAL_CAPABILITIES.supported.setting ?? [])
    .filter((id) => id !== settings[0].id && !settings.find((e) => e.id === id)?.backdrop);
  assert.deepEqual(noBackdrop, []);
  const noGrade = (LOCAL_CAPABILITIES.supported.lighting ?? [])
    .filter((id) => id !== lights[0].id && !lights.find((e) => e.id === id)?.grade);
  assert.deepEqual(noGrade, []);
});
