export * from "./protocol/errors"
