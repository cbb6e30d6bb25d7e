//! Empty: the package exists so that cargo can read its [package.metadata.agenticcann].
