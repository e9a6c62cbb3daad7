// Writes every fixture model (fixture-models.ts) once, before npm test runs the real-model files
// two at a time: two test processes must not both create the gguf venv or the same fixture.

import { fixtureModel } from "./fixture-models";
import { FIXTURE_TEMPLATES, type FixtureName } from "./fixture-templates";

for (const name of Object.keys(FIXTURE_TEMPLATES) as FixtureName[]) console.log(fixtureModel(name));
