// The rooms of src/ and which way their imports may point (STYLE.md, README "Architecture"), checked by
// `npm run lint:deps` as a stage of `npm test`. Type-only imports count: a type is a dependency too.
// Tests (`*.test.ts(x)`) may import across rooms (fixtures, test helpers in src/testing); cycles are checked everywhere.
const TEST = '\\.test\\.tsx?$';

/** A rule on production code of one room: it may not import `to`. */
function room(name, comment, fromPath, to) {
  return { name, comment, severity: 'error', from: { path: fromPath, pathNot: TEST }, to };
}

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Modules that import each other (directly or round a loop) cannot be read, tested or moved apart.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    room('model-imports-nothing-of-ours', 'src/model is the shared vocabulary: it imports only itself and zod (no package, no node module).', '^src/model/', {
      pathNot: ['^src/model/', '^node_modules/zod/'],
    }),
    room('engine-no-ui', 'Engines are pure TypeScript that run in workers and the CLI: no React, no store, no features.', '^src/engine/', {
      path: ['^node_modules/(react|react-dom|zustand|@tanstack)/', '^src/(features|store|ui|app|workers)/'],
    }),
    room('features-not-llm', 'Features reach the endpoint through engines, workers and the settings store, not the client itself.', '^src/features/', {
      path: '^src/llm/',
    }),
    room('store-not-engine', 'The store holds state; engines are run by workers and read their results through the model.', '^src/store/', {
      path: '^src/engine/',
    }),
    room('workers-not-store', 'Workers get their input in the message and answer in messages; the page owns the store.', '^src/workers/', {
      path: '^src/store/',
    }),
    room('import-not-app', 'Importers turn bytes into the model and nothing else: they know no UI, store or worker.', '^src/import/', {
      path: '^src/(features|store|workers|ui|app|engine|llm)/',
    }),
    room('export-not-app', 'Exporters turn the model into bytes: they know no UI, store or worker.', '^src/export/', {
      path: '^src/(features|store|workers|ui|app)/',
    }),
    room('llm-not-app', 'The endpoint client knows nothing above it.', '^src/llm/', {
      path: '^src/(features|store|workers|ui|app|engine|import|export)/',
    }),
    room('ui-not-features', 'Shared UI pieces are shared: they do not reach into a feature.', '^src/ui/', {
      path: '^src/(features|app)/',
    }),
    room('features-not-app', 'The app shell composes features, not the other way round.', '^src/features/', {
      path: '^src/app/',
    }),
    room('production-not-testing', 'Test helpers are for tests only.', '^(src|bench|scripts|test-server)/', {
      path: ['^src/testing/', TEST],
    }),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    preserveSymlinks: true,
    exclude: { path: '^src/.*\\.(css|svg|png)$' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.d.ts'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
