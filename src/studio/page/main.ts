/**
 * The page's entry, kept small: the HTML and CSS shell paints first, and only then does the app
 * load (its chunk, the bundled scenarios and the Web Worker it starts), so the first paint never
 * waits on the simulator. A timeout queued from an animation frame runs after that frame's paint.
 */
requestAnimationFrame(() => setTimeout(() => void import("./studio-app.js")));
