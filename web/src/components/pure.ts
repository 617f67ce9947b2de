import { Component, type FunctionComponent, h } from "preact"

const sameProps = (a: object, b: object): boolean => {
  const keys = Object.keys(a)
  if (keys.length !== Object.keys(b).length) return false
  return keys.every((key) => Object.is(Reflect.get(a, key), Reflect.get(b, key)))
}

/**
 * A component that renders again only when one of its props changed (by identity): the
 * timeline's blocks are immutable, so a block the reducer did not touch is not rendered
 * again when the streaming one grows. (preact/compat's `memo`, without loading compat.)
 */
export const pure = <P extends object>(render: FunctionComponent<P>) =>
  class Pure extends Component<P> {
    override shouldComponentUpdate(next: Readonly<P>): boolean {
      return !sameProps(this.props, next)
    }
    override render() {
      return h(render, this.props)
    }
  }
