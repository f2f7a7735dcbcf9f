// placeholder, replaced below
export {};
